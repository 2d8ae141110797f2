/**
 * Linode's error envelope: `{"errors": [{"field"?, "reason"}]}`, one entry per field at fault. A missing
 * resource is "Not found", a bad token "Invalid Token" and a resource busy with an action "Linode busy." (400),
 * as Linode words them; other reasons are simcloud's messages with numeric ids.
 */
import type { SimcloudError } from '../../server/errors.ts';
import { numericMessage } from '../numeric-ids.ts';
import type { ErrorBody } from './responses.ts';

// "Linode busy." exactly: linodego retries a 400 with this reason (a resource in the middle of an action).
const FIXED: Partial<Record<SimcloudError['code'], string>> = { not_found: 'Not found', unauthorized: 'Invalid Token', locked: 'Linode busy.' };

/** Linode answers a busy resource with 400, where simcloud says 423 locked. */
export const linodeErrorStatus = (e: SimcloudError): number => (e.code === 'locked' ? 400 : e.status);

const reasonOf = (e: SimcloudError): string => FIXED[e.code] ?? numericMessage(e.message);

export function linodeErrorBody(e: SimcloudError): ErrorBody {
  const fixed = FIXED[e.code];
  const fields = (e.fields ?? []).filter((f) => f.name !== '(body)');
  if (fields.length === 0) return { errors: [{ reason: reasonOf(e) }] };
  // A missing resource named in the body (a device id, a firewall_id) is still "Not found", for that field.
  if (fixed !== undefined) return { errors: fields.map((f) => ({ field: f.name, reason: fixed })) };
  return { errors: fields.flatMap((f) => f.messages.map((m) => ({ field: f.name, reason: numericMessage(m) }))) };
}
