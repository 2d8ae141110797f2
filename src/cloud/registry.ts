/**
 * Cloud providers by name, as upstream's `cloudprovider.RegisterCloudProvider` / `InitCloudProvider` keep them:
 * a provider registers a factory under its name when its registration module is imported (the CCM's entry point
 * imports the ones it ships, as upstream's main imports its providers for their `init()`), and the manager builds
 * the one `--cloud-provider` names. The manager therefore knows no provider; a test registers its own.
 *
 * ```ts
 * registerCloudProvider('simcloud', ({ config, onCall }) => new SimcloudProvider({ ... }));
 * const provider = initCloudProvider(config.cloudProvider, { config, onCall }); // UnknownCloudProviderError if none
 * ```
 */
import { UsageError } from '../../lib/usage-error.ts';
import type { CcmConfig } from '../config/schema.ts';
import type { CloudProvider } from './provider.ts';

/** Observes every HTTP exchange a provider has with its cloud: operation, HTTP status (0 = none), seconds. */
export type CloudCallObserver = (operation: string, status: number, seconds: number) => void;

/** What a factory gets (upstream passes the cloud-config file; ours is already merged into the config). */
export interface ProviderInit {
  readonly config: CcmConfig;
  readonly onCall: CloudCallObserver;
}

export type ProviderFactory = (init: ProviderInit) => CloudProvider;

/** `--cloud-provider` names no registered provider: a usage error (exit 2), naming the ones there are. */
export class UnknownCloudProviderError extends UsageError {
  constructor(name: string, registered: readonly string[]) {
    super(`--cloud-provider: unknown cloud provider "${name}" (registered: ${registered.length === 0 ? 'none' : registered.join(', ')})`);
    this.name = 'UnknownCloudProviderError';
  }
}

export class CloudProviderRegistry {
  readonly #factories = new Map<string, ProviderFactory>();

  /** Registers `factory` under `name`; a second registration of a name is a programming error (upstream: fatal). */
  register(name: string, factory: ProviderFactory): void {
    if (name === '') throw new Error('a cloud provider needs a name');
    if (this.#factories.has(name)) throw new Error(`cloud provider "${name}" was registered twice`);
    this.#factories.set(name, factory);
  }

  /** The registered names, sorted. */
  names(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /** The factory registered as `name` (to fail on an unknown name before building anything else). */
  factory(name: string): ProviderFactory {
    const factory = this.#factories.get(name);
    if (!factory) throw new UnknownCloudProviderError(name, this.names());
    return factory;
  }

  /** Builds the provider registered as `name`. */
  init(name: string, init: ProviderInit): CloudProvider {
    return this.factory(name)(init);
  }
}

/** The process's registry: the providers whose registration modules were imported. */
export const cloudProviders = new CloudProviderRegistry();

export function registerCloudProvider(name: string, factory: ProviderFactory): void {
  cloudProviders.register(name, factory);
}

export function initCloudProvider(name: string, init: ProviderInit): CloudProvider {
  return cloudProviders.init(name, init);
}
