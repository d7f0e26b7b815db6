import { describe, expect, it } from 'vitest';
import {
  CACHED_INPUT_PRICE_RATIO,
  cheaperMenuThreshold,
  FIXED_PROMPT_TOKENS,
  KEPT_SHARE,
  NEVER_SHORTLIST_TOKENS,
} from './menu-cost.js';

/** The two sides' effective input tokens a turn with a warm cache, as the rule models them. */
function costs(full: number, size: { personaTokens: number; pinnedTokens: number }, r: number, s: number) {
  const fixed = FIXED_PROMPT_TOKENS + size.personaTokens;
  return { fullMenu: r * (fixed + full), shortlist: fixed + size.pinnedTokens + s * (full - size.pinnedTokens) };
}

describe('cheaperMenuThreshold: the menu size past which the shortlist costs less than the cached full menu', () => {
  const size = { personaTokens: 50, pinnedTokens: 20 };

  it('at the threshold the two sides cost the same; below it the full menu is cheaper, above it the shortlist', () => {
    for (const [r, s] of [
      [0.25, 0.22],
      [0.5, 0.22],
      [0.1, 0.05],
    ] as const) {
      const at = cheaperMenuThreshold(size, r, s);
      const equal = costs(at, size, r, s);
      expect(Math.abs(equal.fullMenu - equal.shortlist)).toBeLessThan(1);
      const below = costs(at * 0.8, size, r, s);
      expect(below.fullMenu).toBeLessThan(below.shortlist);
      const above = costs(at * 1.25, size, r, s);
      expect(above.shortlist).toBeLessThan(above.fullMenu);
    }
  });

  it("under the default model's pricing (cached at 0.25×) and the measured kept share (0.22): about 12,500 tokens for a short persona", () => {
    expect(CACHED_INPUT_PRICE_RATIO).toBe(0.25);
    expect(KEPT_SHARE).toBe(0.22);
    // (0.75 × (450 + 50) + 0.78 × 20) / 0.03 = 13,020.
    expect(cheaperMenuThreshold(size)).toBe(13_020);
    expect(cheaperMenuThreshold({ personaTokens: 50, pinnedTokens: 0 })).toBe(12_500);
  });

  it('grows with what every turn carries anyway (a longer persona, pinned tools)', () => {
    expect(cheaperMenuThreshold({ personaTokens: 500, pinnedTokens: 20 })).toBeGreaterThan(cheaperMenuThreshold(size));
    expect(cheaperMenuThreshold({ personaTokens: 50, pinnedTokens: 400 })).toBeGreaterThan(cheaperMenuThreshold(size));
  });

  it('a provider whose cached tokens are dearer (0.5×) makes the shortlist pay off sooner', () => {
    expect(cheaperMenuThreshold(size, 0.5)).toBeLessThan(cheaperMenuThreshold(size, 0.25));
  });

  it('never, while a shortlisted turn keeps as much of the menu as the cache discount leaves', () => {
    expect(cheaperMenuThreshold(size, 0.25, 0.25)).toBe(NEVER_SHORTLIST_TOKENS);
    expect(cheaperMenuThreshold(size, 0.1, 0.22)).toBe(NEVER_SHORTLIST_TOKENS);
  });
});
