import { describe, expect, it } from 'vitest';
import { hedgeDelayMs, MIN_HEDGE_DELAY_MS } from './hedge-timing.js';

describe('hedgeDelayMs', () => {
  const timing = { afterMs: 4500, freshCallMs: 3500 };

  it('with afterMs + freshCallMs or more left, the tenant afterMs', () => {
    expect(hedgeDelayMs(timing, 20_000)).toBe(4500);
    // Exactly afterMs + freshCallMs left: still afterMs.
    expect(hedgeDelayMs(timing, 8000)).toBe(4500);
  });

  it('with less left than afterMs + freshCallMs, sooner: what is left minus freshCallMs', () => {
    expect(hedgeDelayMs(timing, 7999)).toBe(4499);
    // A first call under the default 8 s deadline starts with about 7.7 s left: hedged at 4.2 s.
    expect(hedgeDelayMs(timing, 7700)).toBe(4200);
    expect(hedgeDelayMs(timing, 5500)).toBe(2000);
    expect(hedgeDelayMs(timing, 4100)).toBe(600);
  });

  it('never sooner than the minimum, however little is left (even nothing)', () => {
    expect(hedgeDelayMs(timing, 3900)).toBe(MIN_HEDGE_DELAY_MS);
    expect(hedgeDelayMs(timing, 0)).toBe(MIN_HEDGE_DELAY_MS);
    expect(hedgeDelayMs(timing, -2000)).toBe(MIN_HEDGE_DELAY_MS);
  });

  it('nobody waiting (a deferred or Messenger turn): the tenant afterMs', () => {
    expect(hedgeDelayMs(timing, Infinity)).toBe(4500);
  });

  it('freshCallMs 0: the fixed afterMs whatever is left', () => {
    expect(hedgeDelayMs({ afterMs: 4500, freshCallMs: 0 }, 1000)).toBe(4500);
    expect(hedgeDelayMs({ afterMs: 4500, freshCallMs: 0 }, 0)).toBe(4500);
  });

  it('an afterMs below the minimum is kept: the tenant chose it', () => {
    expect(hedgeDelayMs({ afterMs: 30, freshCallMs: 3500 }, 1000)).toBe(30);
    expect(hedgeDelayMs({ afterMs: 30, freshCallMs: 3500 }, Infinity)).toBe(30);
  });
});
