import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeCloud } from './cloud/fake-cloud.ts';
import { CloudProviderRegistry, UnknownCloudProviderError } from './cloud/registry.ts';
import { ControllerNames } from './config/controllers.ts';
import { loadConfig } from './config/load.ts';
import { KubeConfigError } from './kube/kubeconfig.ts';
import { Crashes, healthChecks, Manager } from './manager.ts';
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

describe('manager provider selection', () => {
  const env = { SIMCLOUD_ENDPOINT: 'http://127.0.0.1:9', SIMCLOUD_TOKEN: 'sc-manager-test' };
  const logger = pino({ level: 'silent' });

  it('builds the provider --cloud-provider names from the registry; a bad kubeconfig is still named before any cloud call', async () => {
    const registry = new CloudProviderRegistry();
    const built: string[] = [];
    registry.register('fake', ({ config }) => (built.push(config.cloudProvider), new FakeCloud()));
    const config = loadConfig({ argv: ['--cloud-provider=fake', '--kubeconfig=/nonexistent/kubeconfig'], env });
    await expect(Manager.start({ config, logger, registry })).rejects.toThrow(KubeConfigError);
    expect(built).toEqual(['fake']);
  });

  it('refuses an unknown --cloud-provider first, naming the registered ones', async () => {
    const registry = new CloudProviderRegistry();
    registry.register('fake', () => new FakeCloud());
    const config = loadConfig({ argv: ['--cloud-provider=aws', '--kubeconfig=/nonexistent/kubeconfig'], env });
    await expect(Manager.start({ config, logger, registry })).rejects.toThrow(new UnknownCloudProviderError('aws', ['fake']));
  });
});
