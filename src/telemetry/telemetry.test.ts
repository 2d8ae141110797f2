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
    logger.info({ token: 'abc', config: { token: 'def', endpoint: 'http://x' } }, 'hello');
    expect(lines.join('')).not.toContain('abc');
    expect(lines.join('')).not.toContain('def');
    expect(lines.join('')).toContain('http://x');
    expect(redactSecret('token=abc&x=1', 'abc')).toBe('token=[REDACTED]&x=1');
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
