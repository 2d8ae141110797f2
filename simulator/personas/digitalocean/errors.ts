/**
 * DigitalOcean's error body: `{"id", "message", "request_id"}` at the top level, with DigitalOcean's ids and
 * statuses: a field that fails validation is 422 `unprocessable_entity` (an unreadable body 400
 * `bad_request`), as is an id in a body that names nothing; a busy resource 422 too, as DigitalOcean answers a droplet with a pending event.
 */
import type { SimcloudError } from '../../server/errors.ts';
import { numericMessage } from '../numeric-ids.ts';
import type { ErrorBody } from './responses.ts';

interface Shape {
  id: string;
  status: number;
  message?: string;
}

function shapeOf(e: SimcloudError): Shape {
  switch (e.code) {
    case 'invalid_input':
      return e.fields?.some((f) => f.name === '(body)') === true ? { id: 'bad_request', status: 400 } : { id: 'unprocessable_entity', status: 422 };
    case 'not_found':
      // An id in a body that names nothing is a bad field, not a missing resource.
      return (e.fields ?? []).length > 0
        ? { id: 'unprocessable_entity', status: 422 }
        : { id: 'not_found', status: 404, message: 'The resource you were accessing could not be found.' };
    case 'unauthorized':
      return { id: 'Unauthorized', status: 401, message: 'Unable to authenticate you' };
    case 'locked':
      return { id: 'unprocessable_entity', status: 422 };
    case 'rate_limit_exceeded':
      return { id: 'too_many_requests', status: 429, message: 'API Rate limit exceeded.' };
    default:
      return { id: e.code, status: e.status };
  }
}

/** The message names each field at fault (`size: unknown size x`), since DigitalOcean's body has no field list. */
function messageOf(e: SimcloudError): string {
  const fields = (e.fields ?? []).filter((f) => f.name !== '(body)');
  if (fields.length === 0) return numericMessage(e.message);
  return fields.map((f) => `${f.name}: ${f.messages.map(numericMessage).join('; ')}`).join(', ');
}

export const doStatus = (e: SimcloudError): number => shapeOf(e).status;

export function doErrorBody(e: SimcloudError, requestId?: string): ErrorBody {
  const s = shapeOf(e);
  return { id: s.id, message: s.message ?? messageOf(e), request_id: requestId ?? '' };
}
