import { describe, expect, it } from 'vitest';
import { outageKeepBudget } from './outage-keep-budget.js';

const MINUTE = 60_000;
const takeMany = (take: () => boolean, n: number) => Array.from({ length: n }, take).filter(Boolean).length;

describe('the budget of unauthenticated keeps during an outage', () => {
  it('lets one tenant keep its per-minute budget, then refuses, and refills over the minute', () => {
    const budget = outageKeepBudget(5, 100);
    const t0 = 1_000_000;
    expect(takeMany(() => budget.take('a', t0), 8)).toBe(5);
    // A fifth of a minute gives back one keep, no more.
    expect(takeMany(() => budget.take('a', t0 + MINUTE / 5), 3)).toBe(1);
    // A long quiet spell refills to the budget, never beyond it.
    expect(takeMany(() => budget.take('a', t0 + 60 * MINUTE), 8)).toBe(5);
  });

  it("keeps each tenant's budget its own, under one for the whole isolate", () => {
    const budget = outageKeepBudget(5, 12);
    const t0 = 5_000_000;
    expect(takeMany(() => budget.take('a', t0), 6)).toBe(5);
    expect(takeMany(() => budget.take('b', t0), 6)).toBe(5);
    // Many tenant ids (a forger's) share the isolate's: two left of its twelve.
    let kept = 0;
    for (let i = 0; i < 50; i++) if (budget.take(`t${i}`, t0)) kept++;
    expect(kept).toBe(2);
  });

  it('forgets the oldest tenants past its bound, and a forgotten one is still held by the isolate budget', () => {
    const budget = outageKeepBudget(1, 1_000_000);
    const t0 = 9_000_000;
    expect(budget.take('first', t0)).toBe(true);
    expect(budget.take('first', t0)).toBe(false);
    for (let i = 0; i < 1000; i++) budget.take(`x${i}`, t0);
    // 'first' was forgotten (1000 tenants since): a fresh bucket.
    expect(budget.take('first', t0)).toBe(true);
  });

  it('forgets no tenant while under its bound: a second tenant does not refill the first', () => {
    const budget = outageKeepBudget(1, 100);
    const t0 = 3_000_000;
    expect(budget.take('a', t0)).toBe(true);
    expect(budget.take('b', t0)).toBe(true);
    expect(budget.take('a', t0)).toBe(false);
  });
});
