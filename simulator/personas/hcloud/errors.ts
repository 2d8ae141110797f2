/**
 * Hetzner's error envelope and codes. Services throw simcloud's SimcloudError; the persona renders it with
 * Hetzner's code for the same situation (a duplicate name is uniqueness_error, an address in use
 * ip_not_available, an unreadable body json_error). HcloudError carries the codes only Hetzner has
 * (source_port_already_used, target_already_defined, ...) with the simcloud code nearest in meaning.
 */
import type { ErrorCode, FieldError } from '../../api/schema/errors.ts';
import { SimcloudError } from '../../server/errors.ts';
import { numericMessage } from '../numeric-ids.ts';
import type { ErrorBody } from './responses.ts';

/** What Hetzner puts inside `{"error": ...}` (responses.ts). */
export type HcloudErrorBody = ErrorBody['error'];

export class HcloudError extends SimcloudError {
  readonly hcloudCode: string;

  constructor(hcloudCode: string, base: ErrorCode, message: string, field?: string) {
    super(base, message, field === undefined ? {} : { fields: [{ name: field, messages: [message] }] });
    this.hcloudCode = hcloudCode;
  }
}

const ADDRESS_FIELDS = /(^|\.)(ip|private_ipv4|public_ipv4)$/;

function conflictCode(fields: FieldError[]): string {
  if (fields.some((f) => f.name === 'name')) return 'uniqueness_error';
  if (fields.some((f) => ADDRESS_FIELDS.test(f.name))) return 'ip_not_available';
  return 'conflict';
}

const SAME: Partial<Record<ErrorCode, string>> = { service_unavailable: 'unavailable' };

export function hcloudCode(e: SimcloudError): string {
  if (e instanceof HcloudError) return e.hcloudCode;
  const fields = e.fields ?? [];
  if (e.code === 'conflict') return conflictCode(fields);
  if (e.code === 'invalid_input' && fields.some((f) => f.name === '(body)')) return 'json_error';
  return SAME[e.code] ?? e.code;
}

/**
 * The error body: details.fields for invalid_input (what hcloud-go parses) and for any other error about a
 * named field (a refused Host or Origin, an id in a body that is not the caller's), so every refusal names
 * what to fix; an empty details object otherwise.
 */
export function hcloudError(e: SimcloudError): HcloudErrorBody {
  const code = hcloudCode(e);
  const fields = (e.fields ?? []).map((f) => ({ name: f.name, messages: f.messages.map(numericMessage) }));
  const details: HcloudErrorBody['details'] = code === 'invalid_input' || fields.length > 0 ? { fields } : {};
  return { code, message: numericMessage(e.message), details };
}
