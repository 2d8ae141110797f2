/**
 * The DNS-rebinding and cross-site guard of simcloud's HTTP surface (/v1, /_sim and its event stream,
 * /metrics): a request whose Host is not one simcloud was started for is refused with 403 in the error
 * envelope, naming the allowed hosts, before any body is read or token looked at; so is a state change
 * that carries a browser Origin other than simcloud's own (clients that are not browsers send none).
 * The data-plane listeners are raw TCP and not behind this.
 */
import type { RequestHandler } from 'express';
import { allowedHostsOf, hostRefusal, originAllowed } from '../../api/host-check.ts';
import { SimcloudError } from '../errors.ts';

const SAFE = new Set(['GET', 'HEAD']);

export function hostGuard(extra: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    const refusal = hostRefusal(req, extra);
    if (refusal !== undefined) {
      throw new SimcloudError('forbidden', refusal.message, { fields: [{ name: 'host', messages: [`allowed hosts: ${refusal.allowed.join(', ')}`] }] });
    }
    const origin = req.get('origin');
    if (origin !== undefined && !SAFE.has(req.method) && !originAllowed(origin, allowedHostsOf(req, extra), 'http')) {
      const message = `Origin "${origin.slice(0, 100)}" may not change simcloud's state (cross-site request)`;
      throw new SimcloudError('forbidden', message, { fields: [{ name: 'origin', messages: [message] }] });
    }
    next();
  };
}
