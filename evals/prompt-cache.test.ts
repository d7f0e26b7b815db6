import { describe, expect, it } from 'vitest';
import { cacheUseOf, cachedTokensOf, OPENAI_GPT41_CACHE } from './prompt-cache.js';

const rules = OPENAI_GPT41_CACHE;
const tools = [{ type: 'function', function: { name: 'send_flow', description: 'x'.repeat(6000) } }];
const body = (system: string, ...user: string[]) => ({
  model: 'm',
  tools,
  messages: [{ role: 'system', content: system }, ...user.map((content) => ({ role: 'user', content }))],
});

describe('cachedTokensOf (OpenAI: from 1,024 tokens, in 128-token steps)', () => {
  it('caches nothing below the minimum, then whole steps of the prefix', () => {
    expect(cachedTokensOf(rules, 1000, 1000)).toBe(0);
    expect(cachedTokensOf(rules, 5000, 1023)).toBe(0);
    expect(cachedTokensOf(rules, 5000, 1024)).toBe(1024);
    expect(cachedTokensOf(rules, 5000, 1151)).toBe(1024);
    expect(cachedTokensOf(rules, 5000, 1152)).toBe(1152);
    // Never more than the prompt.
    expect(cachedTokensOf(rules, 1300, 9000)).toBe(1280);
  });
});

describe('cacheUseOf', () => {
  it('reuses the best earlier request, not only the previous one, and bills cached tokens at the ratio', () => {
    const a = body('persona A', 'hello');
    const b = body('persona B', 'hi');
    const a2 = body('persona A', 'hello', 'and another question');
    const [first, second, third] = cacheUseOf([a, b, a2]);
    expect(first!.cachedTokens).toBe(0);
    expect(first!.effectiveTokens).toBe(first!.promptTokens);
    // Warm: another contact of the tenant sent the same tools and instructions: all but the message is cached.
    expect(first!.warmCachedTokens).toBe(1408);
    expect(first!.warmEffectiveTokens).toBeLessThan(first!.promptTokens / 2);
    // b differs from a inside the instructions, after the shared tool list.
    expect(second!.menuUnchanged).toBe(false);
    expect(third!.previousShare).toBeLessThan(third!.bestShare);
    expect(third!.bestShare).toBeGreaterThan(0.95);
    expect(third!.cachedTokens).toBeGreaterThanOrEqual(1024);
    expect(third!.effectiveTokens).toBe(
      third!.promptTokens - third!.cachedTokens + rules.cachedInputRatio * third!.cachedTokens,
    );
  });

  it("counts repeated text placed after something new as the layout's loss; new text is not counted", () => {
    const history = 'an earlier message of this contact, long enough to span several pieces of text';
    const before = body('persona', history);
    // Something new ahead of the repeated history: the history can no longer be reused.
    const moved = body('persona', 'new words first', history);
    const appended = body('persona', history, 'the new message, never seen before by the provider at all');
    const [, movedUse] = cacheUseOf([before, moved]);
    const [, appendedUse] = cacheUseOf([before, appended]);
    expect(appendedUse!.repeatedInPrefix).toBe(1);
    expect(movedUse!.repeatedInPrefix).toBeLessThan(1);
    expect(movedUse!.menuUnchanged).toBe(true);
  });
});
