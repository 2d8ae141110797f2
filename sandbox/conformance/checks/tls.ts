// The TLS capability: a user's own certificate (signed by a CA made for the run) put where the cloud's CCM
// reads it, as the cloud's users do (uploaded through its API, or a Secret), and a Service whose annotations
// name it. The load balancer must end TLS on port 443 with that certificate, verified against the run's CA
// alone (a client trusting another CA is refused), forward plain HTTP to a pod of the run's Deployment, and,
// where the cloud redirects, answer plain HTTP on port 80 with a redirect to https.
import { randomBytes } from 'node:crypto';
import { generateCa, issueServerCertificate } from '../../control-plane/pki.ts';
import type { TlsUploadContext } from '../../cloud/descriptor.ts';
import { check, cloudRead, httpGet, httpsGet, NotOffered, standInReply, until, type ConformanceContext } from '../context.ts';
import { ingressOf, WEB } from './load-balancers.ts';

const TLS = 'conformance-tls';
/** The name the certificate is for; clients send it as SNI and Host (the VIP has no DNS name). */
const SERVERNAME = 'tls.conformance.test';
const PATH = '/conformance?tls=1';

async function uploadContext(ctx: ConformanceContext): Promise<TlsUploadContext> {
  return {
    ...(await cloudRead(ctx)),
    createTlsSecret: async (name, c) => {
      const b64 = (s: string): string => Buffer.from(s).toString('base64');
      await ctx.core.createNamespacedSecret({
        namespace: ctx.namespace,
        body: { metadata: { name }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64(c.chain), 'tls.key': b64(c.key) } },
      });
    },
  };
}

export async function lbTls(ctx: ConformanceContext): Promise<string> {
  const profile = ctx.cloud.conformance.tls;
  if ('none' in profile) throw new NotOffered(profile.none);
  const [ca, other] = await Promise.all([generateCa('conformance-tls-ca'), generateCa('conformance-other-ca')]);
  const leaf = await issueServerCertificate(ca, `CN=${SERVERNAME}`, [SERVERNAME]);
  // Unique per run: a cloud account outlives one sandbox, and certificate names are unique in it.
  const name = `${TLS}-${randomBytes(3).toString('hex')}`;
  const annotations = await profile.upload(await uploadContext(ctx), { name, chain: `${leaf.cert.trimEnd()}\n${ca.cert}`, key: leaf.key });
  ctx.involve({ kind: 'Service', namespace: ctx.namespace, name: TLS });
  await ctx.core.createNamespacedService({
    namespace: ctx.namespace,
    body: {
      metadata: { name: TLS, annotations: { ...annotations } },
      spec: {
        type: 'LoadBalancer',
        selector: { app: WEB },
        ports: profile.servicePorts.map((port) => ({ name: port === 443 ? 'https' : 'http', port, targetPort: 80 })),
      },
    },
  });
  const vip = await ingressOf(ctx, TLS);
  ctx.memory.moreLbs = { ...ctx.memory.moreLbs, [TLS]: vip };
  const pods = new Set((await ctx.core.listNamespacedPod({ namespace: ctx.namespace, labelSelector: `app=${WEB}` })).items.map((p) => p.metadata?.name));
  const answer = await until(
    ctx,
    `a TLS handshake on ${vip}:443 for ${SERVERNAME} verified against the run's CA, and a pod of ${WEB} answering behind it`,
    async () => {
      const res = await httpsGet(vip, 443, { ca: ca.cert, servername: SERVERNAME, path: PATH });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      const pod = standInReply(res.body)?.pod;
      if (typeof pod !== 'string' || !pods.has(pod)) throw new Error(`answered ${res.body.slice(0, 120)}, not by a pod of ${WEB}`);
      return { pod, cn: res.cn };
    },
  );
  check(answer.cn === SERVERNAME, `the certificate on ${vip}:443 is for ${answer.cn}, not the uploaded one for ${SERVERNAME}`);
  const untrusted = await httpsGet(vip, 443, { ca: other.cert, servername: SERVERNAME }).then(
    () => 'completed',
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  check(untrusted !== 'completed', `a client trusting only another CA completed the handshake on ${vip}:443`);
  if (!profile.redirect)
    return `ingress ${vip}: TLS ended on 443 with the uploaded certificate (CN ${answer.cn}, verified against the run's CA; another CA refused), answered by ${answer.pod}`;
  const redirect = await until(ctx, `an http-to-https redirect from ${vip}:80`, async () => {
    const res = await httpGet(vip, 80, PATH).catch(() => undefined);
    return res !== undefined && res.status >= 301 && res.status <= 308 ? res : undefined;
  });
  const location = redirect.location ?? '';
  check(location.startsWith('https://') && location.endsWith(PATH), `${vip}:80 redirected to ${location || 'nowhere'}, not to https with the same path`);
  return `ingress ${vip}: TLS ended on 443 with the uploaded certificate (CN ${answer.cn}, verified against the run's CA; another CA refused), answered by ${answer.pod}; port 80 answered ${redirect.status} to ${location}`;
}
