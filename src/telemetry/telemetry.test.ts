import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, levelForVerbosity, redactSecret } from './logger.ts';
import { CcmMetrics } from './metrics.ts';

describe('logger', () => {
  it('maps -v to levels like klog (0 info, 2 debug, 4 trace)', () => {
    expect([0, 1, 2, 3, 4, 9].map(levelForVerbosity)).toEqual(['info', 'info', 'debug', 'debug', 'trace', 'trace']);
  });

  it('redacts tokens in structured fields and messages', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _enc, cb) => (lines.push(chunk.toString()), cb()) });
    const logger = createLogger({ destination });
    logger.info({ token: 'SECRET-TOP', config: { token: 'SECRET-NESTED', endpoint: 'http://x' } }, 'hello');
    // An Error logged on its own is logged under `err`, and its secrets with it.
    logger.error(Object.assign(new Error('direct'), { token: 'SECRET-ERROR' }));
    // Secrets no path or hash in a stack trace can hold by chance (the checkout's path is in the stack).
    for (const secret of ['SECRET-TOP', 'SECRET-NESTED', 'SECRET-ERROR']) expect(lines.join('')).not.toContain(secret);
    expect(lines.join('')).toContain('direct');
    expect(lines.join('')).toContain('http://x');
    expect(redactSecret('token=abc&x=1', 'abc')).toBe('token=[REDACTED]&x=1');
  });

  it('redacts secrets one level down, in headers and in errors, and keeps everything else', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _enc, cb) => (lines.push(chunk.toString()), cb()) });
    const logger = createLogger({ destination }).child({ controller: 'c' });
    const err = Object.assign(new Error('boom'), { authorization: 'Bearer SECRET-E1' });
    logger.info(
      {
        headers: { authorization: 'Bearer SECRET-H1', token: 'SECRET-H3', accept: 'json' },
        req: { headers: { authorization: 'Bearer SECRET-H2' } },
        cloud: { password: 'SECRET-P1', user: 'u' },
        err,
        node: 'n1',
      },
      'call',
    );
    const line = JSON.parse(lines.join('')) as Record<string, unknown>;
    for (const secret of ['SECRET-H1', 'SECRET-H2', 'SECRET-H3', 'SECRET-P1', 'SECRET-E1']) expect(lines.join('')).not.toContain(secret);
    expect(line).toMatchObject({
      controller: 'c',
      node: 'n1',
      msg: 'call',
      headers: { accept: 'json' },
      cloud: { user: 'u' },
      err: { message: 'boom', type: 'Error', stack: expect.stringContaining('Error: boom') as unknown },
    });
    // The caller's objects are not touched.
    expect(err.authorization).toBe('Bearer SECRET-E1');
  });

  it('logs an object without secrets as it is', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _enc, cb) => (lines.push(chunk.toString()), cb()) });
    createLogger({ destination }).info({ node: 'n1', object: { kind: 'Node', name: 'n1' }, count: 3 }, 'synced');
    expect(JSON.parse(lines.join(''))).toMatchObject({ node: 'n1', object: { kind: 'Node', name: 'n1' }, count: 3, msg: 'synced' });
  });
});

describe('metrics', () => {
  it('exposes upstream-named metrics', async () => {
    const metrics = new CcmMetrics();
    metrics.forQueue('service').add();
    metrics.forQueue('service').depth(3);
    metrics.observeSync('service-lb-controller', 'success', 0.2);
    metrics.observeTaintRemovalDelay(4);
    metrics.observeInitialNodeSyncDelay(5);
    metrics.observeCloudCall('GET /servers', 429, 0.1);
    const { body } = await metrics.render();
    for (const name of [
      'workqueue_adds_total{name="service"} 1',
      'workqueue_depth{name="service"} 3',
      'ccm_controller_syncs_total{controller="service-lb-controller",result="success"} 1',
      'node_controller_cloud_provider_taint_removal_delay_seconds_count 1',
      'node_controller_initial_node_sync_delay_seconds_count 1',
      'ccm_cloud_api_calls_total{operation="GET /servers",code="429"} 1',
      'cloudprovider_simcloud_api_request_errors{request="GET /servers"} 1',
    ]) {
      expect(body).toContain(name);
    }
  });
});
