import { describe, expect, it } from 'vitest';
import { SimcloudApiError } from '../../simulator/api/client/index.ts';
import type { Handler } from '../../simulator/api/client/index.ts';
import { retryIdempotentOnServerError } from './client.ts';

const serverError = (): SimcloudApiError => new SimcloudApiError({ code: 'server_error', message: 'boom', status: 500, requestId: 'r', operation: 'x' });

function flaky(failures: number): Handler & { calls: number } {
  const handler = Object.assign(
    () => {
      handler.calls++;
      if (handler.calls <= failures) return Promise.reject(serverError());
      return Promise.resolve({ status: 200, headers: new Headers(), body: {}, requestId: 'r' });
    },
    { calls: 0 },
  );
  return handler;
}

const req = (method: string) => ({ method, path: '/v1/x', headers: {}, operation: 'x' });

describe('retryIdempotentOnServerError', () => {
  it('retries GET and DELETE on a 500', async () => {
    for (const method of ['GET', 'DELETE']) {
      const next = flaky(2);
      await expect(retryIdempotentOnServerError(3, 1)(next)(req(method))).resolves.toMatchObject({ status: 200 });
      expect(next.calls).toBe(3);
    }
  });

  it('never repeats a POST or PATCH', async () => {
    for (const method of ['POST', 'PATCH']) {
      const next = flaky(1);
      await expect(retryIdempotentOnServerError(3, 1)(next)(req(method))).rejects.toThrow('boom');
      expect(next.calls).toBe(1);
    }
  });

  it('gives up after the attempts', async () => {
    const next = flaky(10);
    await expect(retryIdempotentOnServerError(2, 1)(next)(req('GET'))).rejects.toThrow('boom');
    expect(next.calls).toBe(3);
  });
});
