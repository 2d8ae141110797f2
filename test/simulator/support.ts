// Shared set-up of the simcloud contract tests: a real `simcloud serve` process on port 0 with short
// transitions and no data plane, plus request builders with unique names.
import { randomBytes } from 'node:crypto';
import type { SimcloudApiError } from '../../simulator/api/client/index.ts';
import type { CreateLoadBalancerRequest, LoadBalancerService } from '../../simulator/api/schema/load-balancers.ts';
import type { CreateServerRequest } from '../../simulator/api/schema/servers.ts';
import { startSimcloudProcess, type SimcloudProcess } from '../helpers/simcloud.ts';

export const unique = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

export function startContractProcess(extra: string[] = []): Promise<SimcloudProcess> {
  return startSimcloudProcess({ args: ['--delay-ms', '15', '--no-dataplane', ...extra], clientOptions: { retry: { maxRetries: 0 } } });
}

export const serverBody = (over: Partial<CreateServerRequest> = {}): CreateServerRequest => ({
  name: unique('srv'), server_type: 'sc-small', image: 'ubuntu-24.04', zone: 'sim-1a', ...over,
});

export const tcpService = (listen: number, dest: number, over: Partial<LoadBalancerService> = {}): LoadBalancerService => ({
  protocol: 'tcp', listen_port: listen, destination_port: dest, proxy_protocol: 'none',
  health_check: { protocol: 'tcp', port: null, path: '/', interval_seconds: 0.1, timeout_seconds: 0.5, retries: 1 },
  ...over,
});

export const lbBody = (over: Partial<CreateLoadBalancerRequest> = {}): CreateLoadBalancerRequest => ({
  name: unique('lb'), services: [tcpService(80, 8080)], ...over,
});

/** Runs `fn`, expecting a SimcloudApiError; returns it. */
export async function apiError(fn: () => Promise<unknown>): Promise<SimcloudApiError> {
  try {
    await fn();
  } catch (err) {
    if ((err as { name?: string }).name === 'SimcloudApiError') return err as SimcloudApiError;
    throw err;
  }
  throw new Error('expected a SimcloudApiError');
}
