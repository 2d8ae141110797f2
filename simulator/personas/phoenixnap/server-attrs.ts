/**
 * The phoenixNAP persona's slice of a server record (`dialect_attrs.phoenixnap`): the public networks the server
 * is a member of, with the addresses it holds on each. A public network has no range of its own here
 * (public-networks.ts), so membership is a fact of the server record rather than a simcloud network attachment:
 * both the server and the public network read it from there.
 */
import { z } from 'zod';
import type { ServerRec } from '../../server/store/state.ts';
import { sliceReader, type AttrsCarrier } from '../attrs.ts';
import { NAME } from './common.ts';

export const PnapServerAttrs = z.object({
  /** Public networks (simcloud network ids) and the addresses, from their IP blocks, the server holds there. */
  public_networks: z.array(z.object({ network_id: z.string(), ips: z.array(z.string()) })),
});
export type PnapServerAttrs = z.infer<typeof PnapServerAttrs>;
export type PublicMembership = PnapServerAttrs['public_networks'][number];

const read = sliceReader(NAME, PnapServerAttrs);

/** The attributes of a stored server; one that never joined a public network has none set. */
export const serverAttrsOf = (s: AttrsCarrier): PnapServerAttrs => read(s) ?? { public_networks: [] };

/** Every membership of public network `networkId` among `servers`, with the server it belongs to. */
export const membersOf = (servers: readonly ServerRec[], networkId: string): { server: ServerRec; membership: PublicMembership }[] =>
  servers.flatMap((server) =>
    serverAttrsOf(server)
      .public_networks.filter((m) => m.network_id === networkId)
      .map((membership) => ({ server, membership })),
  );
