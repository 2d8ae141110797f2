import { describe, expect, it } from 'vitest';
import {
  findRetryError,
  ImplementedElsewhereError,
  InstanceNotFoundError,
  isImplementedElsewhere,
  isInstanceNotFound,
  isNotImplemented,
  NotImplementedError,
  RetryError,
  wrapError,
} from './errors.ts';
import { defaultLoadBalancerName } from './load-balancer.ts';

describe('cloud contract errors', () => {
  it('carry upstream messages', () => {
    expect(new InstanceNotFoundError().message).toBe('instance not found');
    expect(new NotImplementedError().message).toBe('unimplemented');
    expect(new ImplementedElsewhereError().message).toBe('implemented by alternate to cloud provider');
  });

  it('InstanceNotFound and ImplementedElsewhere are recognised only unwrapped (upstream identity checks)', () => {
    expect(isInstanceNotFound(new InstanceNotFoundError())).toBe(true);
    expect(isInstanceNotFound(wrapError('lookup', new InstanceNotFoundError()))).toBe(false);
    expect(isImplementedElsewhere(wrapError('ensure', new ImplementedElsewhereError()))).toBe(false);
  });

  it('NotImplemented and RetryError are found through the cause chain (errors.Is / errors.As)', () => {
    expect(isNotImplemented(wrapError('a', wrapError('b', new NotImplementedError())))).toBe(true);
    const retry = new RetryError('later', 1500);
    expect(findRetryError(wrapError('failed to ensure load balancer', retry))).toBe(retry);
    expect(findRetryError(new Error('x'))).toBeUndefined();
    expect(wrapError('failed to ensure load balancer', retry).message).toBe('failed to ensure load balancer: later');
  });

  it('DefaultLoadBalancerName is "a" + the UID without dashes, at most 32 characters', () => {
    expect(defaultLoadBalancerName({ metadata: { uid: '0f5c2a8e-1b2c-4d3e-8f90-a1b2c3d4e5f6' } })).toBe('a0f5c2a8e1b2c4d3e8f90a1b2c3d4e5f');
  });
});
