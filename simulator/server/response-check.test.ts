import type { Request, Response, Router } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Sim } from './context.ts';
import { SimcloudError } from './errors.ts';
import { defineRoute, mountRoutes, type RouteDef } from './route-definitions.ts';
import { responseMismatch, validateResponsesFromEnv } from './response-check.ts';

const Lb = z.strictObject({
  id: z.number().int(),
  public_net: z.strictObject({ ipv4: z.strictObject({ ip: z.string() }), ipv6: z.strictObject({ ip: z.string() }) }),
});

const LbAnswer = z.strictObject({ load_balancer: Lb });
const route = (answer: unknown, response: z.ZodType | null = LbAnswer): RouteDef =>
  defineRoute({
    method: 'get',
    path: '/acme/v1/load_balancers/:id',
    operation: 'acme.loadBalancers.get',
    summary: 'Get',
    ...(response === null ? {} : { response }),
    handle: () => answer,
  });

describe('response validation', () => {
  it('is switched on by SIMCLOUD_VALIDATE_RESPONSES=1 or true', () => {
    expect(validateResponsesFromEnv({ SIMCLOUD_VALIDATE_RESPONSES: '1' })).toBe(true);
    expect(validateResponsesFromEnv({ SIMCLOUD_VALIDATE_RESPONSES: 'true' })).toBe(true);
    expect(validateResponsesFromEnv({ SIMCLOUD_VALIDATE_RESPONSES: '0' })).toBe(false);
    expect(validateResponsesFromEnv({})).toBe(false);
  });

  it('names the route, the field path and the value found there', () => {
    const answer = { load_balancer: { id: 7, public_net: { ipv4: { ip: '127.1.0.1' }, ipv6: { ip: null } } } };
    expect(responseMismatch(route(answer), answer)).toBe(
      'response of GET /acme/v1/load_balancers/:id (acme.loadBalancers.get) does not match its schema: ' +
        'load_balancer.public_net.ipv6.ip: Invalid input: expected string, received null (value: null)',
    );
  });

  it('checks the answer as sent: an undefined field is absent, an unknown one is named', () => {
    const answer = { load_balancer: { id: 7, public_net: { ipv4: { ip: '127.1.0.1', extra: 1 }, ipv6: { ip: undefined } } } };
    const message = responseMismatch(route(answer), answer);
    expect(message).toContain('load_balancer.public_net.ipv4: unknown field(s) extra');
    expect(message).toContain('load_balancer.public_net.ipv6.ip: Invalid input: expected string, received undefined (value: absent)');
  });

  it('passes a matching answer, and a route without a schema', () => {
    const answer = { load_balancer: { id: 7, public_net: { ipv4: { ip: '127.1.0.1' }, ipv6: { ip: '::1' } } } };
    expect(responseMismatch(route(answer), answer)).toBeUndefined();
    expect(responseMismatch(route({ anything: true }, null), { anything: true })).toBeUndefined();
  });
});

/** Mounts one route on a recording router and calls it; resolves with what was sent, or rejects with the error. */
async function call(def: RouteDef, validateResponses: boolean): Promise<unknown> {
  let handler: ((req: Request, res: Response) => Promise<void>) | undefined;
  const router = { get: (_path: string, h: typeof handler) => void (handler = h) } as unknown as Router;
  const logger = { error: vi.fn() };
  mountRoutes(router, { logger } as unknown as Sim, [def], { validateResponses });
  let sent: unknown;
  const res = { locals: {}, status: () => res, json: (b: unknown) => void (sent = b), end: () => undefined } as unknown as Response;
  await handler!({ params: { id: '7' }, query: {}, body: undefined, get: () => undefined } as unknown as Request, res);
  return sent;
}

describe('mountRoutes with validation on', () => {
  const bad = { load_balancer: { id: 7, public_net: { ipv4: { ip: '127.1.0.1' }, ipv6: { ip: null } } } };

  it('refuses to send an answer that does not match, as a server_error naming the field', async () => {
    const e = await call(route(bad), true).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SimcloudError);
    expect((e as SimcloudError).code).toBe('server_error');
    expect((e as SimcloudError).message).toContain('load_balancer.public_net.ipv6.ip');
  });

  it('sends it unchecked when validation is off', async () => {
    expect(await call(route(bad), false)).toEqual(bad);
  });
});
