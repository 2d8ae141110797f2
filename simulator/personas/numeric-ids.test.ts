import { describe, expect, it } from 'vitest';
import { numericId, numericMessage, simcloudId } from './numeric-ids.ts';

describe('numeric ids', () => {
  it('are the store sequence number inside a simcloud id, and turn back into it', () => {
    expect(numericId('srv-00000042')).toBe(42);
    expect(simcloudId('srv', 42)).toBe('srv-00000042');
    expect(simcloudId('lb', 123_456_789)).toBe('lb-123456789');
    expect(numericId(simcloudId('lb', 123_456_789))).toBe(123_456_789);
  });

  it('are null for an id the sequence did not make', () => {
    expect(numericId('srv-0001a2')).toBeNull();
  });

  it('replace simcloud ids in messages', () => {
    expect(numericMessage('server srv-00000042 not found on net-00000007')).toBe('server 42 not found on 7');
    expect(numericMessage('load balancer lb-123456789 is busy')).toBe('load balancer 123456789 is busy');
  });

  it('leave names that only look like ids alone', () => {
    expect(numericMessage('unknown location nowhere; one of sim-1, sim-2')).toBe('unknown location nowhere; one of sim-1, sim-2');
    expect(numericMessage('image debian-13 on sc-small in sim-1a (srv-0001234)')).toBe('image debian-13 on sc-small in sim-1a (srv-0001234)');
    expect(numericMessage(`unknown location nowhere; one of sim-1; server ${simcloudId('srv', 7)}`)).toBe('unknown location nowhere; one of sim-1; server 7');
  });
});
