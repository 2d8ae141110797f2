// A UDP socket of the kube-proxy stand-in on one node address and port. kube-proxy's conntrack keeps a UDP
// flow (one client address and port) on the endpoint its first datagram was given until the flow has been
// idle for a while; so does this: a new flow asks `open` for its handler (undefined: no endpoint, the
// datagram is dropped, as kube-proxy's REJECT answers ICMP and a UDP client sees nothing), and the flow's
// later datagrams go to the same handler while its endpoint stays usable. A handler's answer (null: none) goes back from this socket.
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import { realClock, type Clock } from '../../src/kube/clock.ts';

/** A flow's endpoint: answers one datagram (null sends nothing back), and says whether it is still usable. */
export interface FlowHandler {
  readonly answer: (payload: Buffer) => string | null;
  readonly alive: () => boolean;
}

/** Opens a flow from `client`; undefined when there is nowhere to send it. */
export type FlowOpener = (client: { readonly ip: string; readonly port: number }) => FlowHandler | undefined;

/** conntrack's timeout for a UDP flow that saw an answer (nf_conntrack_udp_timeout_stream is 120 s; 30 s unreplied). */
export const UDP_FLOW_IDLE_MS = 120_000;

/** Idle flows are swept at most this often (on a datagram). */
const SWEEP_MS = 1000;

export class UdpStandIn {
  readonly #socket: dgram.Socket;
  readonly #flows = new Map<string, { handler: FlowHandler; lastSeen: number }>();
  readonly #clock: Pick<Clock, 'now'>;
  #swept = 0;
  /** Replaced on every apply, like a TCP listener's routes. */
  open: FlowOpener;

  private constructor(socket: dgram.Socket, open: FlowOpener, clock: Pick<Clock, 'now'>) {
    this.#socket = socket;
    this.open = open;
    this.#clock = clock;
    socket.on('message', (msg, from) => this.#onDatagram(msg, from));
    socket.on('error', () => undefined);
  }

  static listen(ip: string, port: number, open: FlowOpener, clock: Pick<Clock, 'now'> = realClock): Promise<UdpStandIn> {
    const socket = dgram.createSocket(isIPv6(ip) ? 'udp6' : 'udp4');
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: ip, port, exclusive: true }, () => {
        socket.off('error', reject);
        resolve(new UdpStandIn(socket, open, clock));
      });
    });
  }

  #onDatagram(msg: Buffer, from: dgram.RemoteInfo): void {
    const now = this.#clock.now();
    if (now - this.#swept >= SWEEP_MS) {
      this.#swept = now;
      for (const [key, flow] of this.#flows) if (now - flow.lastSeen >= UDP_FLOW_IDLE_MS) this.#flows.delete(key);
    }
    const key = `${from.address}|${from.port}`;
    let flow = this.#flows.get(key);
    // A flow whose endpoint went is given a new one, as kube-proxy clears its conntrack entries.
    if (!flow?.handler.alive()) {
      const handler = this.open({ ip: from.address, port: from.port });
      if (!handler) return;
      flow = { handler, lastSeen: now };
      this.#flows.set(key, flow);
    }
    flow.lastSeen = now;
    const answer = flow.handler.answer(msg);
    if (answer !== null) this.#socket.send(answer, from.port, from.address);
  }

  close(): Promise<void> {
    this.#flows.clear();
    return new Promise((resolve) => this.#socket.close(() => resolve()));
  }
}
