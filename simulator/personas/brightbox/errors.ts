/**
 * Brightbox's error body: `{"error_name", "errors"}` (gobrightbox's APIError reads both) with the API's statuses,
 * and OAuth2's `{"error", "error_description"}` for the token endpoint and a refused bearer, whose errors carry a
 * marker field so that the renderer, which sees only the error, knows them.
 */
import { SimcloudError } from '../../server/errors.ts';
import { bbMessage } from './common.ts';

const OAUTH = '(oauth2)';

/** An OAuth2 error of the token endpoint: `invalid_client` (401), `unsupported_grant_type`, `invalid_scope` (400). */
export function oauthError(error: string, description: string): SimcloudError {
  return new SimcloudError(error === 'invalid_client' ? 'unauthorized' : 'invalid_input', description, { fields: [{ name: OAUTH, messages: [error] }] });
}

const oauthCode = (e: SimcloudError): string | undefined => e.fields?.find((f) => f.name === OAUTH)?.messages[0];

/** Brightbox's error names for simcloud's codes. */
const NAMES: Partial<Record<SimcloudError['code'], string>> = {
  not_found: 'missing_resource',
  invalid_input: 'bad_request',
  conflict: 'invalid_resource',
  locked: 'locked_resource',
  forbidden: 'forbidden',
  rate_limit_exceeded: 'rate_limited',
};

/** Brightbox answers a request it cannot act on, whose resource is in another state, with 422; invalid input is 400. */
const STATUS: Partial<Record<SimcloudError['code'], number>> = { conflict: 422, locked: 409 };

export const bbStatus = (e: SimcloudError): number => (oauthCode(e) === undefined ? (STATUS[e.code] ?? e.status) : e.status);

export function bbErrorBody(e: SimcloudError): Record<string, unknown> {
  const oauth = oauthCode(e);
  if (oauth !== undefined) return { error: oauth, error_description: e.message };
  if (e.code === 'unauthorized') return { error: 'invalid_token', error_description: 'The access token is missing, invalid or expired' };
  const fields = (e.fields ?? []).filter((f) => f.name !== '(body)' && f.name !== '(root)');
  const details = fields.flatMap((f) => f.messages.map((m) => `${f.name}: ${bbMessage(m)}`));
  return { error_name: NAMES[e.code] ?? e.code, errors: [bbMessage(e.message), ...details] };
}
