/**
 * Which tool menu costs less to send, per tenant (issue 34 goal 5): the full menu, whose bytes are
 * the same on every turn and so are billed at the provider's cached-input price once the tenant's
 * cache is warm, or the shortlist (tools/shortlist.ts), smaller but different from turn to turn and
 * so billed in full. With r the cached price ratio:
 *
 *   full menu  ≈ r × (fixed + full)
 *   shortlist  ≈ fixed + pinned + kept
 *
 * so the shortlist is cheaper once full > (fixed + pinned + kept) / r − fixed. What a shortlisted
 * turn keeps hardly grows with the menu (the tools whose words matched, a few resources), so it is
 * a fixed amount here. That size is the default `shortlist.maxToolTokens`.
 *
 * Warm, not cold, on purpose: a tenant's model bill is large only when its traffic is, and then
 * its cache is warm (OpenAI keeps a prefix 5–10 minutes after its last use; a contact's next
 * message usually comes sooner); the full menu is also the safer default (every tool offered, no
 * widening call). `npm run eval -- --shortlist both` prints both sides' effective input tokens per
 * turn, cold and warm, to check the rule against.
 */

/**
 * Cached input tokens cost this share of uncached ones: OpenAI's gpt-4.1 family, the default model
 * (gpt-4.1-mini: $0.40 input, $0.10 cached input per 1 M tokens; developers.openai.com/api/docs/pricing).
 */
export const CACHED_INPUT_PRICE_RATIO = 0.25;

/**
 * Estimated tokens every request carries besides the tenant's persona and tools: the instructions'
 * rules and the `reply` tool (characters / 4; src/turn/prompt.test.ts checks it against the real text).
 */
export const FIXED_PROMPT_TOKENS = 450;

/**
 * Estimated tokens a shortlisted turn keeps besides pinned tools and the fixed part: calibrated on
 * the large-tenant eval cases (60 flows, 40 tags, 15 fields, 6 tools), where a shortlisted turn
 * cost 1,549 input tokens against the full menu's 1,061 warm and 2,720 cold: about 520 prompt
 * tokens above the fixed part, and the menu's prompt tokens run at about 0.65 of its estimate.
 */
export const KEPT_TOKENS = 800;

/** The largest menu size a config may set (core/tenant/tenant-config.ts): "never shortlist". */
export const NEVER_SHORTLIST_TOKENS = 1_000_000;

export interface MenuSize {
  personaTokens: number;
  /** Every pinned tool, whole: the shortlist keeps them on every turn. */
  pinnedTokens: number;
}

/**
 * The menu size (the shortlist's `fullTokens`) above which the shortlist is cheaper than the full
 * menu with a warm prompt cache: the default `shortlist.maxToolTokens` of a tenant that sets none.
 */
export function cheaperMenuThreshold(size: MenuSize, cachedRatio = CACHED_INPUT_PRICE_RATIO): number {
  const fixed = FIXED_PROMPT_TOKENS + size.personaTokens;
  const at = (fixed + size.pinnedTokens + KEPT_TOKENS) / cachedRatio - fixed;
  // Rounded to a millionth first: a ratio that is not exact in binary must not add a token.
  return Math.min(NEVER_SHORTLIST_TOKENS, Math.ceil(Math.round(at * 1e6) / 1e6));
}
