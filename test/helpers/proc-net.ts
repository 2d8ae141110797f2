// Which TCP connections a process tree has open, from Linux's /proc: each process's socket inodes
// (/proc/<pid>/fd) looked up in the namespace's socket tables (/proc/net/tcp, /proc/net/tcp6). A sampler
// reads them every few milliseconds while something runs, to show that every peer is on loopback.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface TcpSocket {
  readonly local: string;
  readonly remote: string;
  /** The kernel's state code: 01 established, 02 SYN sent, 0A listening, ... */
  readonly state: string;
  readonly inode: string;
}

/** An address from /proc/net/tcp{,6}: each 32-bit word in host (little-endian) order. */
export function procAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => (w.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255;
  if (mapped) return bytes.slice(12).join('.');
  // Not compressed: eight groups, e.g. 0:0:0:0:0:0:0:1.
  return Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(':');
}

/** The rows of /proc/net/tcp or /proc/net/tcp6. */
export function parseProcNetTcp(text: string): TcpSocket[] {
  return text
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) return [];
      const [local, remote] = [f[1]!, f[2]!].map((a) => {
        const [ip = '', port = ''] = a.split(':');
        return `${procAddress(ip)}:${parseInt(port, 16)}`;
      });
      return [{ local: local!, remote: remote!, state: f[3]!, inode: f[9]! }];
    });
}

/** Whether a peer (`ip:port` as parsed above) is on loopback: 127.0.0.0/8 or ::1. */
export function isLoopbackPeer(peer: string): boolean {
  const ip = peer.slice(0, peer.lastIndexOf(':'));
  return ip.startsWith('127.') || ip === '0:0:0:0:0:0:0:1';
}

const readOr = (path: string, fallback: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
};

/** `root` and every process descending from it. */
export function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    // The command name may hold spaces and parentheses: the fields after its closing parenthesis.
    const stat = readOr(`/proc/${name}/stat`, '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parent.set(Number(name), ppid);
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** The socket inodes a process holds. */
function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]].filter((x): x is string => x !== undefined);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

const LISTEN = '0A';

export interface Observed {
  /** Every distinct connection seen: `command -> peer`. */
  readonly connections: Set<string>;
  /** The commands whose sockets were seen. */
  readonly commands: Set<string>;
}

/** One look at the connections (not listeners) of the tree under `root`. */
export function sample(root: number, into: Observed): void {
  const owner = new Map<string, string>();
  for (const pid of processTree(root)) {
    const command = readOr(`/proc/${pid}/comm`, '?').trim();
    for (const inode of socketInodes(pid)) owner.set(inode, command);
  }
  const rows = [...parseProcNetTcp(readOr('/proc/net/tcp', '')), ...parseProcNetTcp(readOr('/proc/net/tcp6', ''))];
  for (const row of rows) {
    const command = owner.get(row.inode);
    if (command === undefined || row.state === LISTEN) continue;
    into.commands.add(command);
    into.connections.add(`${command} -> ${row.remote}`);
  }
}

/** Samples the tree under `root` every `intervalMs` until the returned stop is called. */
export function startSampling(root: number, intervalMs = 25): { observed: Observed; stop: () => void } {
  const observed: Observed = { connections: new Set(), commands: new Set() };
  const timer = setInterval(() => sample(root, observed), intervalMs);
  return { observed, stop: () => clearInterval(timer) };
}

/** The sampled connections whose peer is off loopback (`command -> peer`); empty when all stayed on it. */
export function offLoopback(observed: Observed): string[] {
  return [...observed.connections].filter((c) => !isLoopbackPeer(c.slice(c.indexOf(' -> ') + 4)));
}
