// The control plane's PKI, generated fresh for every control plane: one CA, the apiserver's serving
// certificate (valid for 127.0.0.1 and the in-cluster names), client certificates for the admin
// (system:masters), kube-controller-manager and kube-scheduler, the apiserver's client certificate for the
// kubelets' API (logs; kubelet/kubelet-api.ts), kube-scheduler's serving certificate (its /readyz on
// 127.0.0.1), the service-account signing key pair, and etcd's
// own, under a CA of its own as kubeadm does (a client certificate the cluster CA issues, e.g. a CCM's, must
// not open etcd): a certificate it serves clients and peers with, and the apiserver's client certificate
// for it. etcd takes only clients its CA signed, so another local user or a web page cannot read the cluster.
// ECDSA P-256 throughout: generation takes milliseconds and every component accepts it.
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs it loaded first
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const crypto = webcrypto as unknown as Crypto;
x509.cryptoProvider.set(crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const VALIDITY_MS = 365 * 24 * 3600 * 1000;

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

export interface ControlPlanePki {
  readonly ca: PemPair;
  readonly apiServer: PemPair;
  readonly admin: PemPair;
  readonly controllerManager: PemPair;
  readonly scheduler: PemPair;
  /** The apiserver's client certificate for the kubelets (--kubelet-client-certificate), CN KUBELET_CLIENT_CN. */
  readonly kubeletClient: PemPair;
  /** kube-scheduler's serving certificate for 127.0.0.1 (its health and metrics port). */
  readonly schedulerServing: PemPair;
  readonly serviceAccount: { readonly publicKey: string; readonly privateKey: string };
  /** etcd's CA (key never written: nothing else is ever signed by it). */
  readonly etcdCa: string;
  /** etcd's serving (and peer) certificate, for 127.0.0.1 and localhost. */
  readonly etcdServer: PemPair;
  /** The apiserver's client certificate for etcd. */
  readonly etcdClient: PemPair;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
}

function pem(label: string, der: ArrayBuffer): string {
  return x509.PemConverter.encode(der, label);
}

export async function privatePem(key: CryptoKey): Promise<string> {
  return pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', key));
}

function serial(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(8)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

export interface Issuer {
  readonly cert: x509.X509Certificate;
  readonly keys: CryptoKeyPair;
}

/** A CA; `extensions` adds to its own (e.g. name constraints). */
export async function createCa(name = 'ccm-sandbox-ca', extensions: readonly x509.Extension[] = []): Promise<Issuer> {
  const keys = await keyPair();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + VALIDITY_MS),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...extensions,
    ],
  });
  return { cert, keys };
}

export interface LeafSpec {
  readonly subject: string;
  /** `peer`: both, as an etcd member is server and client to the others. */
  readonly usage: 'server' | 'client' | 'peer';
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
}

export async function issue(ca: Issuer, spec: LeafSpec): Promise<PemPair> {
  const keys = await keyPair();
  const now = Date.now();
  const names = [
    ...(spec.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(spec.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const eku = {
    server: [x509.ExtendedKeyUsage.serverAuth],
    client: [x509.ExtendedKeyUsage.clientAuth],
    peer: [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth],
  }[spec.usage];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: spec.subject,
    issuer: ca.cert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + VALIDITY_MS),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(eku),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return { cert: cert.toString('pem'), key: await privatePem(keys.privateKey) };
}

export interface PkiOptions {
  /** First address of the service CIDR: the in-cluster `kubernetes` Service IP. */
  readonly kubernetesServiceIp: string;
}

/** The apiserver's identity towards kubelets (kubeadm's name for it); the only client a virtual kubelet's API serves. */
export const KUBELET_CLIENT_CN = 'kube-apiserver-kubelet-client';

export async function generatePki(options: PkiOptions): Promise<ControlPlanePki> {
  const [ca, etcdCa] = await Promise.all([createCa(), createCa('ccm-sandbox-etcd-ca')]);
  const inCluster = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const [apiServer, admin, controllerManager, scheduler, kubeletClient, schedulerServing, etcdServer, etcdClient] = await Promise.all([
    issue(ca, { subject: 'CN=kube-apiserver', usage: 'server', dnsNames: ['localhost', ...inCluster], ips: ['127.0.0.1', options.kubernetesServiceIp] }),
    issue(ca, { subject: 'CN=ccm-sandbox-admin, O=system:masters', usage: 'client' }),
    issue(ca, { subject: 'CN=system:kube-controller-manager', usage: 'client' }),
    issue(ca, { subject: 'CN=system:kube-scheduler', usage: 'client' }),
    issue(ca, { subject: `CN=${KUBELET_CLIENT_CN}`, usage: 'client' }),
    issue(ca, { subject: 'CN=kube-scheduler', usage: 'server', dnsNames: ['localhost'], ips: ['127.0.0.1'] }),
    issue(etcdCa, { subject: 'CN=etcd', usage: 'peer', dnsNames: ['localhost'], ips: ['127.0.0.1'] }),
    issue(etcdCa, { subject: 'CN=kube-apiserver-etcd-client', usage: 'client' }),
  ]);
  const sa = await keyPair();
  return {
    ca: { cert: ca.cert.toString('pem'), key: await privatePem(ca.keys.privateKey) },
    apiServer,
    admin,
    controllerManager,
    scheduler,
    kubeletClient,
    schedulerServing,
    serviceAccount: { publicKey: pem('PUBLIC KEY', await crypto.subtle.exportKey('spki', sa.publicKey)), privateKey: await privatePem(sa.privateKey) },
    etcdCa: etcdCa.cert.toString('pem'),
    etcdServer,
    etcdClient,
  };
}

async function issuerOf(ca: PemPair): Promise<Issuer> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(ca.key), ALG, true, ['sign']);
  return { cert: caCert, keys: { privateKey: caKey, publicKey: await caCert.publicKey.export(ALG, ['verify']) } };
}

/** A client certificate signed by an existing CA (e.g. for a CCM or kubelet identity). */
export async function issueClientCertificate(ca: PemPair, subject: string): Promise<PemPair> {
  return issue(await issuerOf(ca), { subject, usage: 'client' });
}

/** A CA of its own, as PEM (e.g. the one a test's TLS Secret is signed by). */
export async function generateCa(name: string): Promise<PemPair> {
  const ca = await createCa(name);
  return { cert: ca.cert.toString('pem'), key: await privatePem(ca.keys.privateKey) };
}

/** A serving certificate for `dnsNames` (and `ips`) signed by an existing CA. */
export async function issueServerCertificate(ca: PemPair, subject: string, dnsNames: readonly string[], ips: readonly string[] = []): Promise<PemPair> {
  return issue(await issuerOf(ca), { subject, usage: 'server', dnsNames, ips });
}
