/**
 * What a provider's prompt cache bills for a tenant's model requests (issue 34 goal 5): for each
 * request, the longest start it shares with any earlier request of the same tenant (a prefix
 * cache holds many prompts, not only the last one), turned into cached tokens by the provider's
 * rules, and the effective input tokens = uncached + the cached-token price ratio × cached.
 *
 * Tokens are estimated as characters / 4, as the model sandbox reports usage; the cached share is
 * measured on the prompt the provider renders (tools, then messages, in the order sent), not on the
 * request's other fields.
 */
import { commonPrefixShare, promptText, promptTokensOf } from './prompt-reuse.js';
import { CACHED_INPUT_PRICE_RATIO } from '../tools/menu-cost.js';

export interface PromptCacheRules {
  /** Cached input tokens cost this share of the uncached price. */
  cachedInputRatio: number;
  /** Prompts shorter than this are never cached. */
  minimumTokens: number;
  /** A cache hit is counted in steps of this many tokens (from the minimum on). */
  incrementTokens: number;
  source: string;
}

/**
 * OpenAI, gpt-4.1 family (the product's default model is gpt-4.1-mini): input $0.40, cached input
 * $0.10, output $1.60 per 1 M tokens, i.e. cached at 0.25×. Caching is automatic from 1,024 prompt
 * tokens, in 128-token increments, for exact prefix matches.
 */
export const OPENAI_GPT41_CACHE: PromptCacheRules = {
  // The runtime's default-menu rule prices cached tokens with the same ratio (tools/menu-cost.ts).
  cachedInputRatio: CACHED_INPUT_PRICE_RATIO,
  minimumTokens: 1024,
  incrementTokens: 128,
  source:
    'developers.openai.com/api/docs/pricing (gpt-4.1-mini: $0.40 input, $0.10 cached input per 1 M tokens); developers.openai.com/api/docs/guides/prompt-caching (automatic from 1,024 tokens, exact prefix); OpenAI cookbook "Prompt Caching 201" (hits in 128-token increments)',
};

export interface RequestCacheUse {
  /** Share of the prompt identical from the start to the tenant's previous request. */
  previousShare: number;
  /** Share identical from the start to the best-matching earlier request of the tenant. */
  bestShare: number;
  /**
   * Of the bytes this request repeats from the tenant's earlier requests (found there in 32-byte
   * pieces), the share inside the reusable start: what the layout decides. New text (the contact's
   * message, the model's output, tool results, the turn's canary) cannot be cached by any layout
   * and is left out; repeated text placed after something new is what a layout loses. 1 when
   * nothing is repeated.
   */
  repeatedInPrefix: number;
  /** The tool list and the instructions are those of the tenant's previous request. */
  menuUnchanged: boolean;
  promptTokens: number;
  cachedTokens: number;
  /** uncached + cachedInputRatio × cached. */
  effectiveTokens: number;
  /**
   * The same with a warm cache: the tenant's other contacts, within the cache's lifetime, have
   * sent this request's tools and instructions already (a tenant with steady traffic). A
   * shortlisted request's tools follow the contact's words, so this flatters it: use it for
   * full-menu requests.
   */
  warmCachedTokens: number;
  warmEffectiveTokens: number;
}

/** Cached tokens a provider bills for a prompt of `promptTokens` whose first `prefixTokens` it holds. */
export function cachedTokensOf(rules: PromptCacheRules, promptTokens: number, prefixTokens: number): number {
  if (promptTokens < rules.minimumTokens || prefixTokens < rules.minimumTokens) return 0;
  const steps = Math.floor((Math.min(prefixTokens, promptTokens) - rules.minimumTokens) / rules.incrementTokens);
  return rules.minimumTokens + steps * rules.incrementTokens;
}

/** The tools and the instructions of a request (its first message): what "the menu" is for this measure. */
function menuBody(body: Record<string, unknown>): Record<string, unknown> {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return { tools: body.tools ?? [], messages: messages.slice(0, 1) };
}

function menuOf(body: Record<string, unknown>): string {
  return promptText(menuBody(body));
}

/** One entry per request, in the order sent (the first of a tenant has nothing earlier to reuse). */
export function cacheUseOf(
  bodies: readonly Record<string, unknown>[],
  rules: PromptCacheRules = OPENAI_GPT41_CACHE,
): RequestCacheUse[] {
  const prompts = bodies.map(promptText);
  return bodies.map((body, i) => {
    const prompt = prompts[i]!;
    let bestShare = 0;
    for (let j = 0; j < i; j++) bestShare = Math.max(bestShare, commonPrefixShare(prompts[j]!, prompt));
    const prefix = Math.round(bestShare * prompt.length);
    const repeatedAfter = repeatedBytes(prompts.slice(0, i), prompt.slice(prefix));
    const promptTokens = promptTokensOf(body);
    const cachedTokens = cachedTokensOf(rules, promptTokens, Math.floor(prefix / 4));
    const menuPrefix = Math.max(prefix, commonPrefixShare(promptText(menuBody(body)), prompt) * prompt.length);
    const warmCachedTokens = cachedTokensOf(rules, promptTokens, Math.floor(menuPrefix / 4));
    return {
      previousShare: i > 0 ? commonPrefixShare(prompts[i - 1]!, prompt) : 0,
      bestShare,
      repeatedInPrefix: prefix + repeatedAfter ? prefix / (prefix + repeatedAfter) : 1,
      menuUnchanged: i > 0 && menuOf(bodies[i - 1]!) === menuOf(body),
      promptTokens,
      cachedTokens,
      effectiveTokens: promptTokens - cachedTokens + rules.cachedInputRatio * cachedTokens,
      warmCachedTokens,
      warmEffectiveTokens: promptTokens - warmCachedTokens + rules.cachedInputRatio * warmCachedTokens,
    };
  });
}

const PIECE = 32;

/** Bytes of `tail`, in whole 32-byte pieces, that occur anywhere in `earlier`. */
function repeatedBytes(earlier: readonly string[], tail: string): number {
  if (tail.length < PIECE || !earlier.length) return 0;
  const seen = new Set<string>();
  for (const text of earlier) for (let k = 0; k + PIECE <= text.length; k++) seen.add(text.slice(k, k + PIECE));
  let bytes = 0;
  for (let k = 0; k + PIECE <= tail.length; k += PIECE) if (seen.has(tail.slice(k, k + PIECE))) bytes += PIECE;
  return bytes;
}
