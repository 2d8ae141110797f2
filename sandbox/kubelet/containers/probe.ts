// A container's readiness probe as the kubelet runs it, against 127.0.0.1 (where a process of the sandbox
// listens, whatever the pod's IP): httpGet (a status 200-399; a certificate is not verified) or tcpSocket (a
// connection that opens). exec and grpc probes need the container's own tools: they count as passing.
import { connect } from 'node:net';
import type { IntOrString, V1Container, V1HTTPGetAction, V1Probe } from '@kubernetes/client-node';
import { Agent, request } from 'undici';

/** A named port resolved through the container's ports. */
function probePort(port: IntOrString | undefined, spec: V1Container | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (port !== undefined && /^\d+$/.test(port)) return Number(port);
  return spec?.ports?.find((p) => p.name === port)?.containerPort;
}

/** One readiness check. */
export async function probeOnce(probe: V1Probe, spec: V1Container | undefined): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.httpGet) return httpProbe(probe.httpGet, spec, timeoutMs);
  if (probe.tcpSocket) return tcpProbe(probePort(probe.tcpSocket.port, spec), timeoutMs);
  return true;
}

async function httpProbe(g: V1HTTPGetAction, spec: V1Container | undefined, timeoutMs: number): Promise<boolean> {
  const port = probePort(g.port, spec);
  if (port === undefined) return false;
  const headers = Object.fromEntries((g.httpHeaders ?? []).map((h) => [h.name, h.value]));
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const res = await request(`${(g.scheme ?? 'HTTP').toLowerCase()}://127.0.0.1:${port}${g.path ?? '/'}`, {
      headers,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 400;
  } catch {
    return false;
  } finally {
    await dispatcher.close();
  }
}

function tcpProbe(port: number | undefined, timeoutMs: number): Promise<boolean> {
  if (port === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
