import { describe, expect, it } from 'vitest';
import { compileSourceFilter, parseRange } from './firewall.ts';

describe('compileSourceFilter', () => {
  it('allows everything when the list is null', () => {
    const { filter, invalid } = compileSourceFilter(null);
    expect(filter.allows('8.8.8.8')).toBe(true);
    expect(filter.allows('::1')).toBe(true);
    expect(invalid).toEqual([]);
  });

  it('allows nothing when the list is empty', () => {
    expect(compileSourceFilter([]).filter.allows('127.0.0.1')).toBe(false);
  });

  it('matches IPv4 ranges and bare addresses', () => {
    const { filter } = compileSourceFilter(['127.5.0.0/16', '10.1.2.3']);
    expect(filter.allows('127.5.9.9')).toBe(true);
    expect(filter.allows('127.6.0.1')).toBe(false);
    expect(filter.allows('10.1.2.3')).toBe(true);
    expect(filter.allows('10.1.2.4')).toBe(false);
  });

  it('matches IPv4-mapped IPv6 peers against IPv4 ranges and vice versa', () => {
    expect(compileSourceFilter(['127.0.0.0/8']).filter.allows('::ffff:127.9.9.9')).toBe(true);
    expect(compileSourceFilter(['::ffff:127.0.0.0/104']).filter.allows('127.9.9.9')).toBe(true);
  });

  it('matches IPv6 ranges without mixing families', () => {
    const { filter } = compileSourceFilter(['2001:db8::/32', '0.0.0.0/0']);
    expect(filter.allows('2001:db8:1::5')).toBe(true);
    expect(filter.allows('2001:db9::5')).toBe(false);
    expect(filter.allows('192.0.2.1')).toBe(true);
  });

  it('reports invalid entries and refuses unparsable peers', () => {
    const { filter, invalid } = compileSourceFilter(['nope', '10.0.0.0/33', '10.0.0.0/8']);
    expect(invalid).toEqual(['nope', '10.0.0.0/33']);
    expect(filter.allows(undefined)).toBe(false);
    expect(filter.allows('garbage')).toBe(false);
    expect(filter.allows('10.2.3.4')).toBe(true);
  });

  it('parses a /0 and a host route', () => {
    expect(parseRange('0.0.0.0/0')?.[1]).toBe(0);
    expect(parseRange(' ::1 ')?.[1]).toBe(128);
  });
});
