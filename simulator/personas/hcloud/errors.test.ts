import { describe, expect, it } from 'vitest';
import { SimcloudError, conflict, invalidField, locked, notFound } from '../../server/errors.ts';
import { HcloudError, hcloudError } from './errors.ts';

describe('Hetzner error bodies', () => {
  it.each([
    [conflict('a server named a exists', 'name'), 'uniqueness_error'],
    [conflict('address 10.0.0.5 is in use', 'ip'), 'ip_not_available'],
    [conflict('load balancer 7 is being deleted'), 'conflict'],
    [new SimcloudError('invalid_input', 'unreadable request body', { fields: [{ name: '(body)', messages: ['x'] }] }), 'json_error'],
    [new SimcloudError('service_unavailable', 'injected'), 'unavailable'],
    [locked('server', 'srv-00000001'), 'locked'],
    [notFound('server', 'srv-00000009'), 'not_found'],
    [new HcloudError('source_port_already_used', 'conflict', 'listen port 80 is in use', 'listen_port'), 'source_port_already_used'],
  ])('renders %s as %s', (err, code) => {
    expect(hcloudError(err).code).toBe(code);
  });

  it('names the fields of invalid_input in details and uses numeric ids in messages', () => {
    expect(hcloudError(invalidField('server_type', 'unknown server type x'))).toEqual({
      code: 'invalid_input',
      message: 'invalid server_type: unknown server type x',
      details: { fields: [{ name: 'server_type', messages: ['unknown server type x'] }] },
    });
    expect(hcloudError(notFound('server', 'srv-00000009'))).toEqual({ code: 'not_found', message: 'server 9 not found', details: {} });
    // Any other refusal about a named field names it too: a body id that is not the caller's, a refused Host.
    expect(hcloudError(notFound('network', 'net-00000004', 'network')).details).toEqual({ fields: [{ name: 'network', messages: ['network 4 not found'] }] });
    expect(
      hcloudError(new SimcloudError('forbidden', 'Host "x" is not allowed', { fields: [{ name: 'host', messages: ['allowed hosts: a'] }] })),
    ).toMatchObject({
      code: 'forbidden',
      details: { fields: [{ name: 'host' }] },
    });
  });
});
