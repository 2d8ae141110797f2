import { mkdtempSync, appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiAudit, auditArgs, countRequests, parseAuditLine } from './api-audit.ts';

const event = (over: Record<string, unknown>): string =>
  JSON.stringify({
    kind: 'Event',
    stage: 'ResponseComplete',
    verb: 'patch',
    userAgent: 'simcloud-ccm/cloud-node-controller',
    objectRef: { resource: 'nodes', subresource: 'status' },
    requestReceivedTimestamp: '2026-11-25T10:00:00.123456Z',
    ...over,
  });

describe('parseAuditLine', () => {
  it('attributes our requests by the controller in the User-Agent', () => {
    expect(parseAuditLine(event({}))).toEqual({
      at: Date.parse('2026-11-25T10:00:00.123Z'),
      ccm: 'ours',
      controller: 'cloud-node-controller',
      operation: 'patch nodes/status',
    });
    expect(parseAuditLine(event({ userAgent: 'simcloud-ccm', verb: 'list', objectRef: { resource: 'services' } }))).toMatchObject({
      controller: 'shared',
      operation: 'list services',
    });
  });

  it("attributes upstream's client-go User-Agent, with or without a controller", () => {
    const ua = 'upstream-ccm/v0.0.0 (linux/amd64) kubernetes/$Format';
    expect(parseAuditLine(event({ userAgent: `${ua}/route-controller` }))).toMatchObject({ ccm: 'upstream', controller: 'route-controller' });
    expect(parseAuditLine(event({ userAgent: ua }))).toMatchObject({ ccm: 'upstream', controller: 'shared' });
    expect(parseAuditLine(event({ userAgent: 'upstream-ccm-pinned/v1.37.1 (linux/amd64) kubernetes/$Format/node-controller' }))).toMatchObject({
      controller: 'node-controller',
    });
  });

  it('skips other clients, other stages and junk; counts a watch once, when it starts', () => {
    expect(parseAuditLine(event({ userAgent: 'kubectl/v1.37.1' }))).toBeUndefined();
    expect(parseAuditLine(event({ stage: 'ResponseStarted' }))).toBeUndefined();
    expect(parseAuditLine(event({ verb: 'watch', stage: 'ResponseComplete' }))).toBeUndefined();
    expect(parseAuditLine(event({ verb: 'watch', stage: 'ResponseStarted' }))).toMatchObject({ operation: 'watch nodes/status' });
    expect(parseAuditLine('{not json')).toBeUndefined();
  });
});

describe('ApiAudit', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('follows the file across partial lines and counts a window by controller and operation', () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-'));
    const file = join(dir, 'audit.log');
    const audit = new ApiAudit(file);
    expect(audit.between(0, Infinity)).toEqual([]);
    const line = event({});
    appendFileSync(file, `${line}\n${line.slice(0, 20)}`);
    expect(audit.between(0, Infinity)).toHaveLength(1);
    appendFileSync(file, `${line.slice(20)}\n${event({ verb: 'update', objectRef: { resource: 'nodes' } })}\n`);
    expect(countRequests(audit.between(0, Infinity))).toEqual({
      total: 3,
      byController: { 'cloud-node-controller': { 'patch nodes/status': 2, 'update nodes': 1 } },
    });
  });

  it("reads the CCM's latest request other than a Lease renewal as its last work", () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-'));
    const file = join(dir, 'audit.log');
    const audit = new ApiAudit(file);
    expect(audit.lastWorkAt()).toBe(0);
    const lease = { verb: 'update', objectRef: { resource: 'leases' }, userAgent: 'simcloud-ccm/leader-election' };
    appendFileSync(file, `${event({ verb: 'create', objectRef: { resource: 'events' }, requestReceivedTimestamp: '2026-11-25T10:00:01Z' })}\n`);
    appendFileSync(file, `${event({ ...lease, requestReceivedTimestamp: '2026-11-25T10:00:09Z' })}\n`);
    appendFileSync(file, `${event({ userAgent: 'kubectl/v1.37.1', requestReceivedTimestamp: '2026-11-25T10:00:10Z' })}\n`);
    expect(audit.lastWorkAt()).toBe(Date.parse('2026-11-25T10:00:01Z'));
  });

  it('stops with an error when the log is replaced by a shorter file, and asks the apiserver not to rotate it', () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-'));
    const file = join(dir, 'audit.log');
    const audit = new ApiAudit(file);
    appendFileSync(file, `${event({})}\n${event({})}\n`);
    expect(audit.between(0, Infinity)).toHaveLength(2);
    writeFileSync(file, `${event({})}\n`);
    expect(() => audit.between(0, Infinity)).toThrow(/shrank from 442 to 221 bytes \(rotated or replaced\)/);
    expect(auditArgs('policy.yaml', file)).toContain('--audit-log-maxsize=0');
  });
});
