// The upgrade capability (`--upgrade-from "<command line>"`): the previous CCM takes the slot, initialises a
// joining node and makes the plain and the annotated LoadBalancer Service's load balancers; it is stopped
// and the CCM under test takes over. Nothing the previous one built may be deleted, recreated or renamed; a
// setting the new version changes on purpose (a new default) is reported, not failed. Then an LB update
// round under the new CCM: a second port on the plain Service.
import { DEFAULT_CCM, type CcmChoice } from '../../ccm/slot.ts';
import { check, hasTaint, UNINITIALIZED_TAINT, until, type ConformanceContext } from '../context.ts';
import { cloudLb } from './load-balancers.ts';
import { acrossCcmStart, createServicePair, deleteServices, judge, stateChanges, stopCcm, vipsOf, writesSummary, type CloudState } from './continuity.ts';

const NEW_PORT = 8443;

export async function upgrade(ctx: ConformanceContext): Promise<string> {
  check(ctx.upgradeFrom !== undefined, 'no --upgrade-from: the command line of the previous CCM');
  const underTest = ctx.sandbox.options.ccm ?? DEFAULT_CCM;
  await stopCcm(ctx);
  const { services, before, after } = await underPrevious(ctx, ctx.upgradeFrom, underTest);
  const settings = judge(stateChanges(before, after, ctx), ctx.writes, true);
  await updatePort(ctx, services[0], before.lbs[0]?.vip ?? '');
  await deleteServices(ctx, services, vipsOf(before));
  const changed = settings.length ? `; settings it changed: ${settings.map((c) => c.what).join('; ')}` : '';
  return `${before.lbs.length} load balancers of the previous CCM kept their id, name, address and targets; ${writesSummary(ctx.writes)} after the upgrade${changed}; port ${NEW_PORT} added under the new CCM`;
}

/**
 * The previous CCM's part: it initialises a joining node and makes the Service pair, then the CCM under test
 * takes over. Whatever fails on the way, the slot holds the CCM under test again, so that the capabilities
 * after this one judge it and not the previous CCM (or an empty slot, when the previous one could not start).
 */
async function underPrevious(
  ctx: ConformanceContext,
  previous: string,
  underTest: CcmChoice,
): Promise<{ services: readonly [string, string]; before: CloudState; after: CloudState }> {
  try {
    await ctx.sandbox.startCcm({ kind: 'command', command: previous });
    const joined = await ctx.sandbox.addWorker();
    ctx.involve({ kind: 'Node', name: joined });
    await until(ctx, `the previous CCM to initialise ${joined}`, async () => {
      const node = await ctx.core.readNode({ name: joined }).catch(() => undefined);
      return node !== undefined && !hasTaint(node, UNINITIALIZED_TAINT);
    });
    const services = await createServicePair(ctx, 'upgrade');
    return { services, ...(await acrossCcmStart(ctx, services, () => ctx.sandbox.startCcm(underTest))) };
  } catch (err) {
    if (ctx.sandbox.ccmChoice !== underTest) {
      await stopCcm(ctx);
      await ctx.sandbox.startCcm(underTest);
    }
    throw err;
  }
}

/** The LB update round: a second port on the Service, which the cloud's load balancer must listen on. */
async function updatePort(ctx: ConformanceContext, name: string, vip: string): Promise<void> {
  const svc = await ctx.core.readNamespacedService({ name, namespace: ctx.namespace });
  const ports = [...(svc.spec?.ports ?? []), { name: 'alt', port: NEW_PORT, targetPort: 80 }];
  await ctx.core.replaceNamespacedService({ name, namespace: ctx.namespace, body: { ...svc, spec: { ...svc.spec, ports } } });
  await until(
    ctx,
    `the load balancer of ${name} at ${vip} to listen on ${NEW_PORT} under the new CCM`,
    async () => (await cloudLb(ctx, vip))?.ports.includes(NEW_PORT) ?? false,
  );
}
