// Back to a clean sandbox, shared by `npm run sandbox:reset` and the console's Reset button: every fault
// rule cleared, every LoadBalancer Service deleted (the CCM removes their cloud resources) and every server
// powered on, including one still powering off when Reset is pressed.
import type { CoreV1Api, V1Service } from '@kubernetes/client-node';
import type { CallOptions, SimcloudAdminClient, SimcloudClient } from '../simulator/api/client/index.ts';
import type { Server } from '../simulator/api/schema/servers.ts';
import { isNotFound } from '../src/kube/errors.ts';
import { waitFor, WaitTimeoutError } from './wait.ts';

export interface ResetTargets {
  readonly client: SimcloudClient;
  readonly admin: SimcloudAdminClient;
  /** Absent when the cluster is unreachable: the cloud side is reset anyway. */
  readonly core: CoreV1Api | undefined;
  readonly callOptions?: CallOptions;
}

export interface ResetResult {
  /** LoadBalancer Services this reset deleted (ones already being deleted are not counted). */
  readonly deletedServices: number;
  readonly poweredOn: number;
}

/** A power-off or shutdown lasts seconds of simulated time; Reset waits that long for it to end. */
const STOPPING_WAIT_MS = 15_000;

const isLoadBalancer = (s: V1Service): boolean => s.spec?.type === 'LoadBalancer';

export async function resetSandbox(t: ResetTargets): Promise<ResetResult> {
  await t.admin.clearFaults(t.callOptions);
  const deletedServices = t.core ? await deleteLoadBalancerServices(t.core) : 0;
  const off = (await serversAtRest(t)).filter((s) => s.status === 'off');
  for (const s of off) await t.client.servers.poweron(s.id, t.callOptions);
  return { deletedServices, poweredOn: off.length };
}

/** Resolves once no LoadBalancer Service is left, i.e. the CCM has removed every finalizer. */
export async function waitForLoadBalancerCleanup(core: CoreV1Api, timeoutMs = 120_000): Promise<void> {
  await waitFor(async () => !(await core.listServiceForAllNamespaces()).items.some(isLoadBalancer), {
    timeoutMs,
    intervalMs: 500,
    description: 'LoadBalancer Services to be cleaned up by the CCM',
  });
}

async function deleteLoadBalancerServices(core: CoreV1Api): Promise<number> {
  const live = (await core.listServiceForAllNamespaces()).items.filter((s) => isLoadBalancer(s) && !s.metadata?.deletionTimestamp);
  let deleted = 0;
  for (const s of live) {
    try {
      await core.deleteNamespacedService({ name: s.metadata?.name ?? '', namespace: s.metadata?.namespace ?? '' });
      deleted++;
    } catch (err) {
      if (!isNotFound(err)) throw err; // deleted by someone else meanwhile: the goal holds
    }
  }
  return deleted;
}

/** The servers once none is `stopping` (or as they are after STOPPING_WAIT_MS), so a server being powered off gets powered on. */
async function serversAtRest(t: ResetTargets): Promise<Server[]> {
  const list = (): Promise<Server[]> => t.client.servers.listAll({}, t.callOptions);
  try {
    return await waitFor(
      async () => {
        const servers = await list();
        return !servers.some((s) => s.status === 'stopping') && servers;
      },
      { timeoutMs: STOPPING_WAIT_MS, intervalMs: 250, description: 'servers to finish powering off' },
    );
  } catch (err) {
    if (!(err instanceof WaitTimeoutError)) throw err;
    return list();
  }
}
