// The restart capability: with a plain and an annotated LoadBalancer Service in place (and routes, where the
// CCM programs them), the CCM is stopped and started again with the same command. After a settle window the
// cloud's state must be what it was: no load balancer, target, firewall, route or IP block deleted, recreated
// or renamed, no setting changed. Writes that re-apply what is there pass; every write is listed with its effect.
import type { ConformanceContext } from '../context.ts';
import { acrossCcmStart, createServicePair, deleteServices, judge, stateChanges, vipsOf, writesSummary } from './continuity.ts';

export async function restart(ctx: ConformanceContext): Promise<string> {
  const services = await createServicePair(ctx, 'restart');
  const { before, after } = await acrossCcmStart(ctx, services, () => ctx.sandbox.startCcm());
  judge(stateChanges(before, after, ctx), ctx.writes, false);
  await deleteServices(ctx, services, vipsOf(before));
  return `${before.lbs.length} load balancers kept their id, name, address, targets and settings; ${writesSummary(ctx.writes)} after the restart`;
}
