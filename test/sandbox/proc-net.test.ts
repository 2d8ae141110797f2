// The /proc socket-table reading behind test/e2e/loopback.test.ts.
import { describe, expect, it } from 'vitest';
import { isLoopbackPeer, parseProcNetTcp, procAddress } from '../helpers/proc-net.ts';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 100 0 0 10 0
   1: 0100107F:A1B2 0280A8C0:7530 02 00000000:00000000 00:00000000 00000000     0        0 2222 1 0000000000000000 100 0 0 10 0`;

describe('/proc/net/tcp', () => {
  it('reads addresses in host order, listeners and connection attempts alike', () => {
    expect(parseProcNetTcp(TCP)).toEqual([
      { local: '127.0.0.1:8080', remote: '0.0.0.0:0', state: '0A', inode: '1111' },
      { local: '127.16.0.1:41394', remote: '192.168.128.2:30000', state: '02', inode: '2222' },
    ]);
  });

  it('reads IPv6 and IPv4-mapped addresses', () => {
    expect(procAddress('00000000000000000000000001000000')).toBe('0:0:0:0:0:0:0:1');
    expect(procAddress('0000000000000000FFFF00000100007F')).toBe('127.0.0.1');
  });

  it('calls 127.0.0.0/8 and ::1 loopback and nothing else', () => {
    expect(isLoopbackPeer('127.20.0.4:30080')).toBe(true);
    expect(isLoopbackPeer('0:0:0:0:0:0:0:1:443')).toBe(true);
    expect(isLoopbackPeer('192.168.128.2:10250')).toBe(false);
    expect(isLoopbackPeer('10.0.0.2:30080')).toBe(false);
  });
});
