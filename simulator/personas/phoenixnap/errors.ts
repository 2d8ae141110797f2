/**
 * phoenixNAP's error body: `{"message", "validationErrors"}` (the SDKs' `Error` model) with the API's
 * statuses, and OAuth2's `{"error", "error_description"}` for the token endpoint, whose errors carry a marker
 * field so that the renderer, which sees only the error, knows them.
 */
import { SimcloudError } from '../../server/errors.ts';
import { pnapMessage } from './common.ts';

const OAUTH = '(oauth2)';

/** An OAuth2 error of the token endpoint: `invalid_client` (401), `invalid_request`, `unsupported_grant_type` (400), ... */
export function oauthError(error: string, description: string): SimcloudError {
  const unauthorized = error === 'invalid_client';
  return new SimcloudError(unauthorized ? 'unauthorized' : 'invalid_input', description, { fields: [{ name: OAUTH, messages: [error] }] });
}

const oauthCode = (e: SimcloudError): string | undefined => e.fields?.find((f) => f.name === OAUTH)?.messages[0];

const STATUS: Partial<Record<SimcloudError['code'], number>> = { locked: 409 };

export const pnapStatus = (e: SimcloudError): number => STATUS[e.code] ?? e.status;

function messageOf(e: SimcloudError): string {
  if (e.code === 'unauthorized') return 'Unauthorized';
  if (e.code === 'rate_limit_exceeded') return 'Too Many Requests';
  return pnapMessage(e.message);
}

export function pnapErrorBody(e: SimcloudError): Record<string, unknown> {
  const oauth = oauthCode(e);
  if (oauth !== undefined) return { error: oauth, error_description: e.message };
  const fields = (e.fields ?? []).filter((f) => f.name !== '(body)' && f.name !== '(root)');
  const validationErrors = fields.flatMap((f) => f.messages.map((m) => `${f.name}: ${pnapMessage(m)}`));
  return { message: messageOf(e), ...(validationErrors.length === 0 ? {} : { validationErrors }) };
}
