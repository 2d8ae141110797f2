/**
 * SimcloudError: the only error type services throw. Built by the factories below; rendered by the
 * error middleware as `{ error: { code, message, details, request_id } }`.
 */
import type { z } from 'zod';
import { ERROR_STATUS, type ErrorCode, type FieldError } from '../api/schema/errors.ts';

export class SimcloudError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: { fields?: FieldError[]; status?: number; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'SimcloudError';
    this.code = code;
    this.status = opts.status ?? ERROR_STATUS[code];
    this.fields = opts.fields;
    this.headers = opts.headers ?? {};
  }
}

const field = (name: string, message: string): FieldError[] => [{ name, messages: [message] }];

export const invalidInput = (message: string, fields: FieldError[] = []): SimcloudError => new SimcloudError('invalid_input', message, { fields });
export const invalidField = (name: string, message: string): SimcloudError => invalidInput(`invalid ${name}: ${message}`, field(name, message));
export const notFound = (what: string, id: string, fieldName?: string): SimcloudError =>
  new SimcloudError('not_found', `${what} ${id} not found`, fieldName === undefined ? {} : { fields: field(fieldName, `${what} ${id} not found`) });
export const conflict = (message: string, fieldName?: string): SimcloudError =>
  new SimcloudError('conflict', message, fieldName === undefined ? {} : { fields: field(fieldName, message) });
export const locked = (what: string, id: string): SimcloudError => new SimcloudError('locked', `${what} ${id} is busy with a running action`);
export const unauthorized = (message = 'missing or invalid token'): SimcloudError => new SimcloudError('unauthorized', message);
export const forbidden = (message: string): SimcloudError => new SimcloudError('forbidden', message);
export const rateLimited = (retryAfterS: number, headers: Record<string, string>): SimcloudError =>
  new SimcloudError('rate_limit_exceeded', `rate limit exceeded, retry in ${retryAfterS} s`, { headers: { ...headers, 'retry-after': String(retryAfterS) } });

/**
 * An unknown key as a field name: itself when it is a plain name, else JSON-quoted, since a client can send any
 * key (empty, with spaces, dots or `, `) and an error must still name it where a reader can find it.
 */
const keyName = (key: string): string => (/^[\w-]+$/.test(key) ? key : JSON.stringify(key));

/** Converts zod issues to field errors named by their dotted path (prefixed with `body`/`query` roots omitted). */
export function fieldsFromZod(error: z.ZodError, prefix = ''): FieldError[] {
  const byName = new Map<string, string[]>();
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => (path === '' ? keyName(k) : `${path}.${keyName(k)}`)) : [path];
    for (const k of keys) {
      const name = prefix + (k === '' ? '(root)' : k);
      byName.set(name, [...(byName.get(name) ?? []), issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message]);
    }
  }
  return [...byName].map(([name, messages]) => ({ name, messages }));
}
