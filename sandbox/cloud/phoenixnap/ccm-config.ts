// What phoenixNAP's own CCM needs before it starts: the cluster's public network, made through the persona's
// networks API as a phoenixNAP user makes it, and the cloud config (`--cloud-config`, JSON; the CCM panics
// without one) whose `loadbalancer` names it: `kube-vip://<public network id>`, the model phoenixNAP documents
// (the CCM assigns each Service an IP block on that network; kube-vip announces the address from a node).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { buildRequester } from '../../../simulator/api/client/client.ts';
import { SimcloudApiError } from '../../../simulator/api/client/errors.ts';
import type { Requester } from '../../../simulator/api/client/requester.ts';
import { NETWORKS } from '../../../simulator/personas/phoenixnap/common.ts';
import { phoenixnapAccessToken, phoenixnapLocationOf } from './env.ts';

/** The cloud config's file in the CCM directory. */
export const PHOENIXNAP_CLOUD_CONFIG = 'cloud-config.json';

const PublicNetworks = z.array(z.object({ id: z.string().min(1), name: z.string() }));
const PublicNetwork = z.object({ id: z.string().min(1), name: z.string() });

/** The cluster's public network's name. */
export const publicNetworkName = (network: string): string => `${network}-public`;

/**
 * Finds or makes the cluster's public network; returns its id. The machines and the CCM's preparation run at
 * once and each may make it: the one that loses the race (409, names are unique) finds the winner's.
 */
export async function ensurePublicNetwork(api: Requester, network: string, location: string): Promise<string> {
  const name = publicNetworkName(network);
  const find = async (): Promise<string | undefined> =>
    (await api.call('phoenixnap.publicNetworks.list', PublicNetworks, { method: 'GET', path: `${NETWORKS}/public-networks` })).find((n) => n.name === name)?.id;
  const existing = await find();
  if (existing !== undefined) return existing;
  try {
    return (
      await api.call('phoenixnap.publicNetworks.create', PublicNetwork, { method: 'POST', path: `${NETWORKS}/public-networks`, body: { name, location } })
    ).id;
  } catch (e) {
    const raced = e instanceof SimcloudApiError && e.status === 409 ? await find() : undefined;
    if (raced === undefined) throw e;
    return raced;
  }
}

/** Finds or makes the cluster's public network and writes the cloud config naming it; returns its id. */
export async function preparePhoenixnapCcm(o: { endpoint: string; token: string; network: string; zone: string; ccmDir: string }): Promise<string> {
  const bearer = await phoenixnapAccessToken(o.endpoint, o.token);
  const api = buildRequester({ endpoint: o.endpoint, token: bearer, caller: 'ccm-sandbox' });
  const location = phoenixnapLocationOf(o.zone);
  const net = { id: await ensurePublicNetwork(api, o.network, location) };
  writeFileSync(join(o.ccmDir, PHOENIXNAP_CLOUD_CONFIG), `${JSON.stringify({ loadbalancer: `kube-vip://${net.id}`, location })}\n`, { mode: 0o600 });
  return net.id;
}
