import { describe, expect, it } from 'vitest';
import { AllowedHostError, allowedHostsFor, hostAllowed, originAllowed, parseAllowedHosts, splitHost, tokenMatches } from './host-check.ts';

describe('host check', () => {
  const allowed = allowedHostsFor('127.0.0.1', 8787, ['dev.example.test', 'box.lan:9000']);

  it('allows loopback names and the arrival address with the bound port only', () => {
    for (const h of ['127.0.0.1:8787', 'localhost:8787', 'LOCALHOST:8787', '[::1]:8787']) expect(hostAllowed(h, allowed, 80)).toBe(true);
    for (const h of ['127.0.0.1:8788', 'localhost', 'attacker.example:8787', 'localhost.:8787', '127.0.0.1.nip.io:8787', '', 'localhost:8787:1']) {
      expect(hostAllowed(h, allowed, 80)).toBe(false);
    }
    expect(hostAllowed(undefined, allowed, 80)).toBe(false);
  });

  it('lets a port-less extra name match any port and a NAME:PORT match that port only', () => {
    expect(hostAllowed('dev.example.test:1234', allowed, 80)).toBe(true);
    expect(hostAllowed('dev.example.test', allowed, 80)).toBe(true);
    expect(hostAllowed('box.lan:9000', allowed, 80)).toBe(true);
    expect(hostAllowed('box.lan:9001', allowed, 80)).toBe(false);
  });

  it('adds a wildcard-bound server the address the connection arrived at, IPv4-mapped addresses unwrapped', () => {
    expect(allowedHostsFor('::ffff:192.0.2.7', 80, [])).toContain('192.0.2.7:80');
    expect(allowedHostsFor('fe80::1', 80, [])).toContain('[fe80::1]:80');
    expect(hostAllowed('192.0.2.7', allowedHostsFor('::ffff:192.0.2.7', 80, []), 80)).toBe(true);
  });

  it('checks Origin by scheme and host, refusing null and other schemes', () => {
    expect(originAllowed('http://127.0.0.1:8787', allowed, 'http')).toBe(true);
    expect(originAllowed('http://localhost:8787', allowed, 'http')).toBe(true);
    expect(originAllowed('https://localhost:8787', allowed, 'http')).toBe(false);
    expect(originAllowed('http://attacker.example:8787', allowed, 'http')).toBe(false);
    expect(originAllowed('null', allowed, 'http')).toBe(false);
    expect(originAllowed('http://user@localhost:8787', allowed, 'http')).toBe(false);
  });

  it('refuses wildcards, schemes and junk in --allowed-host, naming the value', () => {
    expect(parseAllowedHosts(['a.test,b.test:81', ' C.test '])).toEqual(['a.test', 'b.test:81', 'c.test']);
    for (const bad of ['*', 'http://a.test', 'a.test:0', 'a.test:70000', 'a_b', '.a.test']) {
      expect(() => parseAllowedHosts([bad])).toThrow(AllowedHostError);
    }
    expect(() => parseAllowedHosts(['*'], '--x')).toThrow('--x takes a host name or NAME:PORT (no scheme, no wildcard), got "*"');
    expect(splitHost('[::1]:80')).toEqual({ name: '[::1]', port: 80 });
  });

  it('compares tokens of any length without throwing, and only equal ones match', () => {
    expect(tokenMatches('secret-token', 'secret-token')).toBe(true);
    expect(tokenMatches('secret-token-longer', 'secret-token')).toBe(false);
    expect(tokenMatches('', 'secret-token')).toBe(false);
    expect(tokenMatches(undefined, 'secret-token')).toBe(false);
  });
});
