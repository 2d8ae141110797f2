/** The cloud contract (mirrors `k8s.io/cloud-provider`); see each module's header. */
export { CloudMethod, inMethod, type CallContext, type CloudProvider } from './provider.ts';
export type { InstanceMetadata, InstancesV2 } from './instances.ts';
export { defaultLoadBalancerName, type LoadBalancer, type LoadBalancerLookup } from './load-balancer.ts';
export type { Route, Routes } from './routes.ts';
export * from './errors.ts';
