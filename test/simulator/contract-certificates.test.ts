// simcloud's /v1 certificates through the typed client against a real process: an upload is checked (a PEM
// chain, the key of its first certificate, not expired on simcloud's clock, a unique name) with 400/409
// naming the field; the view reads fingerprint, validity and names from the chain and never shows the key;
// an https service names it by id and it cannot be deleted while one does.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCa, issueServerCertificate, type PemPair } from '../../sandbox/control-plane/pki.ts';
import type { SimcloudProcess } from '../helpers/simcloud.ts';
import { apiError, lbBody, startContractProcess, tcpService, unique } from './support.ts';

let sc: SimcloudProcess;
let ca: PemPair;
let leaf: PemPair;
beforeAll(async () => {
  [sc, ca] = await Promise.all([startContractProcess(), generateCa('contract-certificates-ca')]);
  leaf = await issueServerCertificate(ca, 'CN=web.test', ['web.test', 'www.web.test']);
});
afterAll(async () => {
  await sc?.stop();
});

describe('certificates (/v1)', () => {
  it('uploads a chain, shows what TLS clients will see of it and never the key, lists, renames and deletes it', async () => {
    const name = unique('cert');
    const made = await sc.client.certificates.create({ name, labels: { app: 'web' }, certificate: `${leaf.cert}${ca.cert}`, private_key: leaf.key });
    const x = new X509Certificate(leaf.cert);
    expect(made).toMatchObject({
      name,
      labels: { app: 'web' },
      fingerprint_sha256: x.fingerprint256.replace(/:/g, '').toLowerCase(),
      not_valid_before: x.validFromDate.toISOString(),
      not_valid_after: x.validToDate.toISOString(),
      domain_names: ['web.test', 'www.web.test'],
      used_by: [],
    });
    expect(made.certificate.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(JSON.stringify(made)).not.toContain('PRIVATE KEY');
    expect(await sc.client.certificates.get(made.id)).toEqual(made);
    expect((await sc.client.certificates.list({ name })).certificates.map((c) => c.id)).toEqual([made.id]);
    expect((await sc.client.certificates.list({ label_selector: 'app=web' })).certificates.map((c) => c.id)).toContain(made.id);
    const renamed = await sc.client.certificates.update(made.id, { name: `${name}-2` });
    expect(renamed).toEqual({ ...made, name: `${name}-2` });
    await sc.client.certificates.delete(made.id);
    expect((await apiError(() => sc.client.certificates.get(made.id))).status).toBe(404);
  });

  it('refuses a bad PEM, a key of another certificate, a taken name and unknown fields, naming the field', async () => {
    const name = unique('bad');
    const other = await issueServerCertificate(ca, 'CN=other.test', ['other.test']);
    const cases: [Parameters<typeof sc.client.certificates.create>[0], number, string, RegExp][] = [
      [{ name, certificate: 'not a pem', private_key: leaf.key }, 400, 'certificate', /PEM certificate chain/],
      [
        { name, certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', private_key: leaf.key },
        400,
        'certificate',
        /not a PEM certificate/,
      ],
      [{ name, certificate: leaf.cert, private_key: other.key }, 400, 'private_key', /is not the key of the certificate/],
      [{ name, certificate: leaf.cert, private_key: 'junk' }, 400, 'private_key', /not a PEM private key/],
    ];
    for (const [body, status, field, message] of cases) {
      const e = await apiError(() => sc.client.certificates.create(body));
      expect({ status: e.status, code: e.code, field: e.fields[0]?.name }).toEqual({ status, code: 'invalid_input', field });
      expect(e.fields[0]?.messages.join(' ')).toMatch(message);
    }
    await sc.client.certificates.create({ name, certificate: leaf.cert, private_key: leaf.key });
    const taken = await apiError(() => sc.client.certificates.create({ name, certificate: leaf.cert, private_key: leaf.key }));
    expect({ status: taken.status, code: taken.code, field: taken.fields[0]?.name }).toEqual({ status: 409, code: 'conflict', field: 'name' });
    const raw = await fetch(`${sc.url}/v1/certificates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sc.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: unique('x'), certificate: leaf.cert, private_key: leaf.key, type: 'uploaded' }),
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { details: { fields: { name: string }[] } } }).error.details.fields[0]?.name).toBe('type');
  });

  it('is named by an https service by id, shows that load balancer, and cannot be deleted while it does', async () => {
    const cert = await sc.client.certificates.create({ name: unique('inuse'), certificate: leaf.cert, private_key: leaf.key });
    const https = tcpService(8443, 8080, { protocol: 'https', certificate_id: cert.id });
    const unknown = await apiError(() => sc.client.loadBalancers.create(lbBody({ services: [{ ...https, certificate_id: 'crt-999999' }] })));
    expect(unknown.fields[0]?.name).toMatch(/certificate_id/);
    const { load_balancer: lb, action } = await sc.client.loadBalancers.create(lbBody({ services: [https] }));
    await sc.client.waitForAction(action.id);
    expect((await sc.client.certificates.get(cert.id)).used_by).toEqual([lb.id]);
    const busy = await apiError(() => sc.client.certificates.delete(cert.id));
    expect({ status: busy.status, code: busy.code }).toEqual({ status: 409, code: 'conflict' });
    expect(busy.message).toContain(lb.id);
    await sc.client.waitForAction((await sc.client.loadBalancers.delete(lb.id)).id);
    await sc.client.certificates.delete(cert.id);
  });

  // Last: it moves this process's clock past the certificate's end.
  it("refuses a certificate that has expired on simcloud's clock", async () => {
    const x = new X509Certificate(leaf.cert);
    // A fast-forward moves at most a year, and the certificate is valid for a year and a minute.
    const past = x.validToDate.getTime() - Date.now() + 60_000;
    for (const ms of [Math.floor(past / 2), Math.ceil(past / 2)]) await sc.admin.fastForward(ms);
    const e = await apiError(() => sc.client.certificates.create({ name: unique('old'), certificate: leaf.cert, private_key: leaf.key }));
    expect({ status: e.status, field: e.fields[0]?.name }).toEqual({ status: 400, field: 'certificate' });
    expect(e.fields[0]?.messages[0]).toBe(`expired on ${x.validToDate.toISOString()}`);
  });
});
