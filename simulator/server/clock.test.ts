import { describe, expect, it } from 'vitest';
import { SimClock } from './clock.ts';

describe('SimClock', () => {
  it('runs at its speed from an anchor and fires due timers in order on fast-forward', () => {
    let real = 1_000;
    const clock = new SimClock({ realNow: () => real, start: 0, speed: 2 });
    real += 500;
    expect(clock.now()).toBe(1000);
    const fired: string[] = [];
    clock.setTimer(5_000, () => fired.push('b'));
    clock.setTimer(3_000, () => fired.push('a'));
    clock.setTimer(90_000, () => fired.push('c'));
    clock.fastForward(4_000);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.offset).toBe(4_000);
    clock.setSpeed(10);
    real += 100;
    expect(clock.now()).toBe(6_000);
    clock.stop();
  });

  it('leaves the wall clock alone when simulated time is advanced or sped up', () => {
    let wall = 7_000;
    const clock = new SimClock({ realNow: () => 0, wallNow: () => wall, start: 0 });
    clock.fastForward(3_600_000);
    clock.setSpeed(60);
    expect(clock.wallNow()).toBe(7_000);
    wall += 5;
    expect(clock.wallNow()).toBe(7_005);
    clock.stop();
  });

  it('cancels timers', () => {
    const clock = new SimClock({ realNow: () => 0, start: 0 });
    const fired: number[] = [];
    const id = clock.setTimer(10, () => fired.push(1));
    clock.clearTimer(id);
    clock.fastForward(20);
    expect(fired).toEqual([]);
    clock.stop();
  });
});
