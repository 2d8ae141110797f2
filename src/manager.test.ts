import { describe, expect, it } from 'vitest';
import { ControllerNames } from './config/controllers.ts';
import { Crashes, healthChecks } from './manager.ts';
import { healthz } from './serving.ts';

describe('manager health after a crash', () => {
  it('turns /healthz and the crashed controller check red and stops the manager once', () => {
    let stops = 0;
    const crashes = new Crashes(() => stops++);
    const checks = healthChecks(new Set([ControllerNames.cloudNode, ControllerNames.service]), crashes, undefined);
    expect(healthz(checks, undefined).status).toBe(200);
    crashes.crashed(ControllerNames.service, new Error('boom'));
    crashes.crashed(ControllerNames.service, new Error('again'));
    expect(healthz(checks, undefined)).toMatchObject({ status: 500 });
    expect(healthz(checks, ControllerNames.service)).toEqual({ status: 500, body: `internal server error: ${ControllerNames.service} crashed: boom\n` });
    expect(healthz(checks, ControllerNames.cloudNode).status).toBe(200);
    expect(crashes.first()).toBe(`${ControllerNames.service} crashed: boom`);
    expect(stops).toBe(2);
  });

  it('fails every controller check when building the controllers crashed', () => {
    const crashes = new Crashes(() => undefined);
    const checks = healthChecks(new Set([ControllerNames.cloudNode]), crashes, undefined);
    crashes.crashed('controller start-up', new Error('bad cidr'));
    expect(healthz(checks, ControllerNames.cloudNode).status).toBe(500);
  });
});
