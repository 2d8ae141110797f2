/**
 * The DNS-rebinding guard of simcloud's HTTP surface (/v1, /_sim and its event stream, /metrics): a
 * request whose Host is not one simcloud was started for is refused with 403 in the error envelope,
 * naming the allowed hosts, before any body is read or token looked at. The data-plane listeners are
 * raw TCP and not behind this.
 */
import type { RequestHandler } from 'express';
import { hostRefusal } from '../../api/host-check.ts';
import { SimcloudError } from '../errors.ts';

export function hostGuard(extra: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    const refusal = hostRefusal(req, extra);
    if (refusal === undefined) return next();
    throw new SimcloudError('forbidden', refusal.message, { fields: [{ name: 'host', messages: [`allowed hosts: ${refusal.allowed.join(', ')}`] }] });
  };
}
