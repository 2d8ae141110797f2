/**
 * Canonical controller names (upstream `cloud-provider/names`). They label metrics and logs and
 * prefix the `caller` sent with every cloud call (`X-Simcloud-Caller: <controller> <object key>`).
 * Event source components differ (see `EventSource` in src/kube/events.ts).
 */
export const ControllerName = {
  CloudNode: 'cloud-node-controller',
  CloudNodeLifecycle: 'cloud-node-lifecycle-controller',
  Service: 'service-lb-controller',
  Route: 'node-route-controller',
} as const;
export type ControllerName = (typeof ControllerName)[keyof typeof ControllerName];

/** The `caller` of a cloud call: controller name and object key. */
export function callerOf(controller: ControllerName, key: string): string {
  return `${controller} ${key}`;
}
