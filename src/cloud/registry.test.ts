import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/usage-error.ts';
import { loadConfig } from '../config/load.ts';
import { SimcloudProvider } from '../simcloud/provider.ts';
import '../simcloud/register.ts';
import { FakeCloud } from './fake-cloud.ts';
import { CloudProviderRegistry, cloudProviders, UnknownCloudProviderError, type ProviderInit } from './registry.ts';

const config = loadConfig({ argv: [], env: { SIMCLOUD_ENDPOINT: 'http://127.0.0.1:9', SIMCLOUD_TOKEN: 'sc-registry-test', SIMCLOUD_NETWORK: 'pods' } });
const init: ProviderInit = { config, onCall: () => undefined };

describe('CloudProviderRegistry', () => {
  it('builds the provider registered under the name, handing its factory the config', () => {
    const registry = new CloudProviderRegistry();
    const seen: ProviderInit[] = [];
    const fake = new FakeCloud();
    registry.register('fake', (i) => (seen.push(i), fake));
    registry.register('other', () => new FakeCloud());
    expect(registry.init('fake', init)).toBe(fake);
    expect(seen).toEqual([init]);
    expect(registry.names()).toEqual(['fake', 'other']);
  });

  it('refuses an unknown name as a usage error in one line naming the registered providers', () => {
    const registry = new CloudProviderRegistry();
    registry.register('fake', () => new FakeCloud());
    const refused = (): unknown => registry.init('aws', init);
    expect(refused).toThrow(UnknownCloudProviderError);
    expect(refused).toThrow(UsageError);
    expect(refused).toThrow(/^--cloud-provider: unknown cloud provider "aws" \(registered: fake\)$/);
    expect(() => new CloudProviderRegistry().factory('aws')).toThrow('--cloud-provider: unknown cloud provider "aws" (registered: none)');
  });

  it('refuses a second registration of a name and an empty name', () => {
    const registry = new CloudProviderRegistry();
    registry.register('fake', () => new FakeCloud());
    expect(() => registry.register('fake', () => new FakeCloud())).toThrow('cloud provider "fake" was registered twice');
    expect(() => registry.register('', () => new FakeCloud())).toThrow('a cloud provider needs a name');
  });

  it('holds simcloud once its registration module is imported, built from the config with its capabilities', () => {
    expect(cloudProviders.names()).toContain('simcloud');
    const provider = cloudProviders.init('simcloud', init);
    expect(provider).toBeInstanceOf(SimcloudProvider);
    expect(provider.providerName).toBe('simcloud');
    expect(provider.routes()).toBeDefined();
    expect(provider.loadBalancer()).toBeDefined();
  });
});
