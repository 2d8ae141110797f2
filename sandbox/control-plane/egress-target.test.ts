import { describe, expect, it } from 'vitest';
import { decideEgress, parseTarget, type KubeletLocation, type NodeView } from './egress-target.ts';

const NODES: NodeView[] = [
  {
    name: 'w1',
    kubeletPort: 41001,
    addresses: [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'ExternalIP', address: '203.0.113.7' },
      { type: 'Hostname', address: 'W1' },
    ],
  },
  { name: 'w6', kubeletPort: 41006, addresses: [{ type: 'ExternalIP', address: '2001:db8::7' }] },
  { name: 'silent', kubeletPort: 41002, addresses: [{ type: 'InternalIP', address: '192.168.1.9' }] },
  {
    name: 'lo',
    kubeletPort: 41003,
    addresses: [
      { type: 'InternalIP', address: '127.0.5.5' },
      { type: 'ExternalIP', address: '127.0.6.6' },
    ],
  },
];
const KUBELETS: Record<string, KubeletLocation> = {
  w1: { address: '127.0.0.11', port: 41001 },
  w6: { address: '127.0.0.16', port: 41006 },
  lo: { address: '127.0.6.6', port: 41003 },
};
const kubelet = (node: string): KubeletLocation | undefined => KUBELETS[node];
const decide = (target: string): ReturnType<typeof decideEgress> | 'malformed' => {
  const parsed = parseTarget(target);
  return parsed ? decideEgress(parsed, NODES, kubelet) : 'malformed';
};
const W1_NAMES = ['10.0.0.5', '203.0.113.7', 'W1'];

describe('egress target decision', () => {
  it.each([
    ['InternalIP (RFC 1918)', '10.0.0.5:41001'],
    ['ExternalIP (public)', '203.0.113.7:41001'],
    ['Hostname, any case', 'w1:41001'],
  ])("maps a node's %s with its kubelet port to its kubelet API on loopback", (_what, target) => {
    expect(decide(target)).toEqual({ kind: 'mapped', node: 'w1', host: '127.0.0.11', port: 41001, names: W1_NAMES });
  });

  it.each([
    ['bracketed IPv6', '[2001:db8::7]:41006'],
    ['IPv6 in a long form', '[2001:db8:0:0::7]:41006'],
  ])("maps a node's %s address", (_what, target) => {
    expect(decide(target)).toMatchObject({ kind: 'mapped', node: 'w6', host: '127.0.0.16', port: 41006 });
  });

  it("maps a node's loopback InternalIP to the address its kubelet binds", () => {
    expect(decide('127.0.5.5:41003')).toMatchObject({ kind: 'mapped', node: 'lo', host: '127.0.6.6', port: 41003 });
  });

  it.each([
    ['127.0.0.1:443', '127.0.0.1', 443],
    ['127.45.3.9:8443', '127.45.3.9', 8443],
    ['[::1]:9443', '::1', 9443],
    ['[::ffff:127.0.0.2]:80', '127.0.0.2', 80],
    ['localhost:6443', '127.0.0.1', 6443],
    ['webhook.localhost:6443', '127.0.0.1', 6443],
  ])('passes loopback %s through', (target, host, port) => {
    expect(decide(target)).toEqual({ kind: 'passthrough', host, port });
  });

  it.each([
    ['a pod IP of the pod CIDR', '10.244.1.5:80', '10.244.1.5:80 is not a loopback address'],
    ['a ClusterIP', '10.96.0.10:443', '10.96.0.10:443 is not a loopback address'],
    ['172.16/12', '172.20.1.1:443', '172.20.1.1:443 is not a loopback address'],
    ['a public address', '8.8.8.8:53', '8.8.8.8:53 is not a loopback address'],
    ["a node's address on another port", '10.0.0.5:80', '10.0.0.5:80 is not a loopback address'],
    ['public IPv6', '[2001:db8::8]:443', '[2001:db8::8]:443 is not a loopback address'],
    ['IPv4-mapped RFC 1918', '[::ffff:192.168.0.1]:443', '192.168.0.1:443 is not a loopback address'],
    ["a Service's DNS name", 'hook.default.svc:443', 'hook.default.svc:443 is a name the sandbox does not resolve'],
    ['loopback in hex (a name to Go, never resolved here)', '0x7f.1:80', '0x7f.1:80 is a name the sandbox does not resolve'],
  ])('refuses %s with 403, naming the address and the rule', (_what, target, why) => {
    expect(decide(target)).toEqual({
      kind: 'refused',
      status: 403,
      reason: `ccm-sandbox dials loopback only (127.0.0.0/8, ::1): ${why} nor a Node's address with its kubelet port`,
    });
  });

  it("refuses a node's address whose kubelet API is not serving with 502, without passing it on", () => {
    expect(decide('192.168.1.9:41002')).toMatchObject({ kind: 'refused', status: 502, reason: expect.stringContaining('node silent') as unknown });
  });

  it.each(['10.0.0.5', '10.0.0.5:0', '10.0.0.5:70000', ':80', '2001:db8::7:443', '[10.0.0.5]:80', '[w1]:41001', 'a b:80'])(
    'takes %s as malformed',
    (target) => {
      expect(decide(target)).toBe('malformed');
    },
  );
});
