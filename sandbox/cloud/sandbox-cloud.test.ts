import { describe, expect, it } from 'vitest';
import type { SimcloudClient } from '../../simulator/api/client/index.ts';
import type { SimEvent } from '../../simulator/api/schema/events.ts';
import type { PowerEvent } from '../runtimes/runtime.ts';
import { parseSseMessage } from './events.ts';
import { powerAction, SANDBOX_LABELS, SimcloudSandboxCloud } from './sandbox-cloud.ts';

function change(id: string, status: string | null, cluster = 'c1'): SimEvent {
  return {
    type: 'resource_change',
    seq: 1,
    time: '2026-11-21T00:00:00Z',
    change: status === null ? 'deleted' : 'updated',
    resource_type: 'server',
    resource_id: id,
    project_id: 'p',
    resource: status === null ? null : { id, name: `n-${id}`, status, labels: { [SANDBOX_LABELS.cluster]: cluster } },
  };
}

describe('power actions from server status transitions', () => {
  it.each([
    ['running', 'stopping', 'poweroff'],
    ['running', 'off', 'poweroff'],
    ['off', 'starting', 'poweron'],
    ['running', 'starting', 'reboot'],
    ['running', 'deleting', 'delete'],
    ['off', 'deleted', 'delete'],
    ['stopping', 'off', undefined],
    ['starting', 'running', undefined],
    ['deleting', 'deleted', undefined],
    [undefined, 'running', undefined],
  ])('%s -> %s is %s', (before, after, action) => {
    expect(powerAction(before, after)).toBe(action);
  });

  it('reports power events for the cluster\'s servers only, including their deletion', () => {
    const cloud = new SimcloudSandboxCloud({ client: {} as SimcloudClient, clusterName: 'c1' });
    const seen: PowerEvent[] = [];
    cloud.onPowerEvent((e) => seen.push(e));
    for (const e of [change('a', 'running'), change('a', 'stopping'), change('a', 'off'), change('b', 'running', 'other'), change('b', 'stopping', 'other'), change('a', null)]) {
      cloud.handleSimEvent(e);
    }
    expect(seen).toEqual([
      { serverId: 'a', name: 'n-a', action: 'poweroff' },
      { serverId: 'a', name: 'a', action: 'delete' },
    ]);
  });
});

describe('server-sent events', () => {
  it('parses id and multi-line data, and ignores comments', () => {
    expect(parseSseMessage('id: 42\ndata: {"a":\ndata: 1}')).toEqual({ id: '42', data: '{"a":\n1}' });
    expect(parseSseMessage(': keep-alive')).toBeUndefined();
  });
});
