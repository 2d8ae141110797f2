import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kube/clock.ts';
import { EndpointPicker } from './endpoint-picker.ts';
import type { ProxyEndpoint } from './proxy-table.ts';

const ep = (pod: string, n: number): ProxyEndpoint => ({ pod, node: 'n1', address: `10.0.0.${n}`, port: 8080 });
const three = [ep('a', 1), ep('b', 2), ep('c', 3)];

describe('endpoint picker', () => {
  it('takes turns over the endpoints without affinity, per Service port', () => {
    const picker = new EndpointPicker(new FakeClock());
    const picks = Array.from({ length: 4 }, () => picker.pick('web:http', three, '127.0.0.1', null)?.pod);
    expect(picks).toEqual(['a', 'b', 'c', 'a']);
    expect(picker.pick('other:http', three, '127.0.0.1', null)?.pod).toBe('a');
    expect(picker.pick('web:http', [], '127.0.0.1', null)).toBeUndefined();
  });

  it('keeps a client on its endpoint under ClientIP affinity until the timeout passes without a connection', async () => {
    const clock = new FakeClock();
    const picker = new EndpointPicker(clock);
    const first = picker.pick('web:http', three, '127.0.0.5', 10_000)?.pod;
    expect(picker.pick('web:http', three, '127.0.0.6', 10_000)?.pod).not.toBe(first);
    await clock.advance(9_000);
    expect(picker.pick('web:http', three, '127.0.0.5', 10_000)?.pod).toBe(first);
    // The pin was refreshed by that connection: 9 s later it still holds.
    await clock.advance(9_000);
    expect(picker.pick('web:http', three, '127.0.0.5', 10_000)?.pod).toBe(first);
    await clock.advance(10_000);
    const after = new Set(Array.from({ length: 3 }, () => picker.pick('web:http', three, '127.0.0.5', 10_000)?.pod));
    expect(after.size).toBe(1);
    picker.pick('web:http', three, '127.0.0.7', 10_000);
    await clock.advance(10_000);
    // Expired: the client gets the round robin's next endpoint, not necessarily its old one.
    expect(picker.pick('web:http', three, '127.0.0.5', 10_000)?.pod).not.toBe([...after][0]);
  });

  it('moves a pinned client when its endpoint is no longer usable', () => {
    const picker = new EndpointPicker(new FakeClock());
    const pinned = picker.pick('web:http', three, '127.0.0.5', 60_000)!;
    const rest = three.filter((e) => e !== pinned);
    const moved = picker.pick('web:http', rest, '127.0.0.5', 60_000)!;
    expect(moved.pod).not.toBe(pinned.pod);
    expect(picker.pick('web:http', three, '127.0.0.5', 60_000)?.pod).toBe(moved.pod);
  });

  it('forgets ports that are no longer proxied', () => {
    const picker = new EndpointPicker(new FakeClock());
    picker.pick('web:http', three, '127.0.0.1', null);
    picker.retain(new Set());
    expect(picker.pick('web:http', three, '127.0.0.1', null)?.pod).toBe('a');
  });
});
