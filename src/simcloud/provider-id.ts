/**
 * ProviderIDs of simcloud servers: `simcloud://<server-id>`. The kubelet or the node controller writes it once;
 * it MUST NOT change for the life of a Node, so the format here must not change either.
 */
export const PROVIDER_NAME = 'simcloud';
export const PROVIDER_ID_PREFIX = `${PROVIDER_NAME}://`;

const SERVER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A providerID that is not `simcloud://<server-id>` (another provider's, or malformed). */
export class ProviderIdError extends Error {
  readonly providerID: string;
  constructor(providerID: string, reason: string) {
    super(`providerID "${providerID}" ${reason}; expected ${PROVIDER_ID_PREFIX}<server-id>`);
    this.name = 'ProviderIdError';
    this.providerID = providerID;
  }
}

/** `simcloud://<serverId>`. */
export function toProviderId(serverId: string): string {
  if (!SERVER_ID.test(serverId)) throw new ProviderIdError(PROVIDER_ID_PREFIX + serverId, 'has an invalid server id');
  return PROVIDER_ID_PREFIX + serverId;
}

/** The server id of `simcloud://<id>`; throws `ProviderIdError` for anything else. */
export function parseProviderId(providerID: string): string {
  if (!providerID.startsWith(PROVIDER_ID_PREFIX)) throw new ProviderIdError(providerID, 'does not start with ' + PROVIDER_ID_PREFIX);
  const id = providerID.slice(PROVIDER_ID_PREFIX.length);
  if (!SERVER_ID.test(id)) throw new ProviderIdError(providerID, 'has an invalid server id');
  return id;
}
