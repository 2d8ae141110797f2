import { describe, expect, it } from 'vitest';
import { ProviderIdError, parseProviderId, toProviderId } from './provider-id.ts';

describe('provider IDs', () => {
  it('round-trips simcloud://<id>', () => {
    expect(toProviderId('srv-1a2b')).toBe('simcloud://srv-1a2b');
    expect(parseProviderId('simcloud://srv-1a2b')).toBe('srv-1a2b');
  });

  it.each(['', 'simcloud://', 'hcloud://123', 'simcloud:///x', 'simcloud://a/b', 'srv-1'])('rejects %j with a typed error', (id) => {
    expect(() => parseProviderId(id)).toThrow(ProviderIdError);
  });

  it('names the expected format', () => {
    expect(() => parseProviderId('aws:///eu/i-1')).toThrow('expected simcloud://<server-id>');
  });
});
