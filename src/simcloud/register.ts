/**
 * Registers the simcloud provider as `simcloud` in the process's cloud-provider registry. Imported for that
 * effect by the CCM's entry point (src/cli.ts) and by whatever starts the manager in-process.
 */
import { registerCloudProvider } from '../cloud/registry.ts';
import { PROVIDER_NAME } from './provider-id.ts';
import { SimcloudProvider } from './provider.ts';

registerCloudProvider(
  PROVIDER_NAME,
  ({ config, onCall }) =>
    new SimcloudProvider({
      endpoint: config.endpoint,
      token: config.token,
      requestTimeoutMs: config.requestTimeout,
      httpTransport: config.httpTransport,
      loadBalancersEnabled: config.loadBalancersEnabled,
      loadBalancerStrategy: config.loadBalancerStrategy,
      routesEnabled: config.routesEnabled,
      network: config.network,
      onCall,
    }),
);
