import { describe, expect, it } from 'vitest';
import {
  CACHED_INPUT_PRICE_RATIO,
  cheaperMenuThreshold,
  FIXED_PROMPT_TOKENS,
  KEPT_TOKENS,
  NEVER_SHORTLIST_TOKENS,
} from './menu-cost.js';

/** The two sides' effective input tokens a turn with a warm cache, as the rule models them. */
function costs(full: number, size: { personaTokens: number; pinnedTokens: number }, r: number) {
  const fixed = FIXED_PROMPT_TOKENS + size.personaTokens;
  return { fullMenu: r * (fixed + full), shortlist: fixed + size.pinnedTokens + KEPT_TOKENS };
}

describe('cheaperMenuThreshold: the menu size past which the shortlist costs less than the cached full menu', () => {
  const size = { personaTokens: 50, pinnedTokens: 20 };

  it('at the threshold the two sides cost the same; below it the full menu is cheaper, above it the shortlist', () => {
    for (const r of [0.1, 0.25, 0.5]) {
      const at = cheaperMenuThreshold(size, r);
      const equal = costs(at, size, r);
      expect(Math.abs(equal.fullMenu - equal.shortlist)).toBeLessThan(1);
      const below = costs(at * 0.8, size, r);
      expect(below.fullMenu).toBeLessThan(below.shortlist);
      const above = costs(at * 1.25, size, r);
      expect(above.shortlist).toBeLessThan(above.fullMenu);
    }
  });

  it("under the default model's pricing (cached at 0.25×): (450 + 50 + 20 + 800) / 0.25 − 500 = 4,780", () => {
    expect(CACHED_INPUT_PRICE_RATIO).toBe(0.25);
    expect(cheaperMenuThreshold(size)).toBe(4_780);
  });

  it('grows with what every turn carries anyway (a longer persona, pinned tools)', () => {
    expect(cheaperMenuThreshold({ personaTokens: 500, pinnedTokens: 20 })).toBeGreaterThan(cheaperMenuThreshold(size));
    expect(cheaperMenuThreshold({ personaTokens: 50, pinnedTokens: 400 })).toBeGreaterThan(cheaperMenuThreshold(size));
  });

  it('a provider whose cached tokens are dearer (0.5×) makes the shortlist pay off sooner; a near-free cache, far later', () => {
    expect(cheaperMenuThreshold(size, 0.5)).toBeLessThan(cheaperMenuThreshold(size, 0.25));
    expect(cheaperMenuThreshold(size, 0.01)).toBeGreaterThan(100_000);
    expect(cheaperMenuThreshold(size, 0.0001)).toBe(NEVER_SHORTLIST_TOKENS);
  });
});
