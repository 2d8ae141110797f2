/**
 * What the personas that issue OAuth2 tokens of their own (phoenixNAP, Brightbox) share: reading an OAuth2
 * client-credentials request's client id and secret, from HTTP Basic (each form-encoded, as RFC 6749 says) or from
 * the form body (golang.org/x/oauth2 tries both).
 */
import { z } from 'zod';
import type { PersonaRequest } from '../server/persona.ts';

const Form = z.record(z.string(), z.unknown());
const formDecode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));

/** The client id and secret of a token request, or undefined when it carries none (or an undecodable one). */
export function clientCredentials(req: PersonaRequest): { id: string; secret: string } | undefined {
  const basic = /^Basic\s+(\S+)$/i.exec(req.authorization ?? '');
  if (basic !== null) {
    const raw = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = raw.indexOf(':');
    try {
      return colon < 0 ? undefined : { id: formDecode(raw.slice(0, colon)), secret: formDecode(raw.slice(colon + 1)) };
    } catch {
      return undefined;
    }
  }
  const form = Form.safeParse(req.body);
  const { client_id: id, client_secret: secret } = form.success ? form.data : {};
  return typeof id === 'string' && typeof secret === 'string' ? { id, secret } : undefined;
}
