import { describe, expect, it } from 'vitest';
import { HealthState, isEligible } from './health-state.ts';

describe('HealthState', () => {
  it('lets the first completed check decide', () => {
    expect(new HealthState(3).record(true)).toBe('healthy');
    expect(new HealthState(3).record(false)).toBe('unhealthy');
  });

  it('needs `retries` consecutive failures to go down and one success to come back', () => {
    const s = new HealthState(3, 'healthy');
    expect([s.record(false), s.record(false), s.record(true)]).toEqual([null, null, null]);
    expect([s.record(false), s.record(false), s.record(false)]).toEqual([null, null, 'unhealthy']);
    expect(s.record(false)).toBeNull();
    expect(s.record(true)).toBe('healthy');
    expect(s.status).toBe('healthy');
  });

  it('treats retries below one as one', () => {
    const s = new HealthState(0, 'healthy');
    expect(s.record(false)).toBe('unhealthy');
  });

  it('counts unknown and healthy targets as eligible', () => {
    expect(['unknown', 'healthy', 'unhealthy'].map((s) => isEligible(s as never))).toEqual([true, true, false]);
  });
});
