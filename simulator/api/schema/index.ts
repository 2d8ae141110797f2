/** Every simcloud wire schema, re-exported for `import { … } from 'simulator/api/schema/index.ts'`. */
export * from './common.ts';
export * from './errors.ts';
export * from './label-selector.ts';
export * from './projects.ts';
export * from './catalogue.ts';
export * from './actions.ts';
export * from './servers.ts';
export * from './networks.ts';
export * from './load-balancers.ts';
export * from './server-groups.ts';
export * from './firewall-policies.ts';
export * from './ip-blocks.ts';
export * from './certificates.ts';
export * from './tombstones.ts';
export * from './tags.ts';
export * from './events.ts';
export * from './internal.ts';
