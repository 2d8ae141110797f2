import { KubeConfig, RequestContext, HttpMethod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from './clock.ts';
import { rateLimitedAuth } from './api-client.ts';
import { TokenBucket } from './token-bucket.ts';

describe('rate-limited API auth', () => {
  it('holds requests beyond the burst until the bucket refills, then applies the credentials', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
      users: [{ name: 'u', token: 'secret-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const clock = new FakeClock();
    const auth = rateLimitedAuth(kc, new TokenBucket(1, 2, clock));
    const contexts = [0, 1, 2].map(() => new RequestContext('https://127.0.0.1:6443/api/v1/nodes', HttpMethod.GET));
    const done: number[] = [];
    contexts.forEach((ctx, i) => void Promise.resolve(auth.applySecurityAuthentication(ctx)).then(() => done.push(i)));
    await flushMicrotasks();
    expect(done).toEqual([0, 1]);
    await clock.advance(1000);
    expect(done).toEqual([0, 1, 2]);
    expect(contexts[2]?.getHeaders().Authorization).toBe('Bearer secret-token');
  });
});
