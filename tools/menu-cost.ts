/**
 * Which tool menu costs less to send, per tenant (issue 34 goal 5): the full menu, whose bytes are
 * the same on every turn and so are billed at the provider's cached-input price once the tenant's
 * cache is warm, or the shortlist (tools/shortlist.ts), smaller but different from turn to turn and
 * so billed in full. With r the cached price ratio and s the share of the unpinned menu a
 * shortlisted turn keeps:
 *
 *   full menu  ≈ r × (fixed + full)
 *   shortlist  ≈ fixed + pinned + s × (full − pinned)
 *
 * so the shortlist is cheaper once full > ((1 − r) × fixed + (1 − s) × pinned) / (r − s), and
 * never while it keeps r or more of the menu. That size is the default `shortlist.maxToolTokens`.
 *
 * Warm, not cold, on purpose: a tenant's model bill is large only when its traffic is, and then
 * its cache is warm (OpenAI keeps a prefix 5–10 minutes after its last use; a contact's next
 * message usually comes sooner); the full menu is also the safer default (every tool offered, no
 * widening call). `npm run eval -- --shortlist both` prints both sides' effective input tokens per
 * turn, cold and warm, and the kept share measured, to check the rule against.
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
 * Share of the unpinned menu (estimated tokens) a shortlisted turn keeps: measured by
 * `npm run eval -- --shortlist both` on the large-tenant cases (60 flows, 40 tags, 6 tools): 0.22.
 * A turn keeps every tool whose own words match (often with its whole scope), so the share stays
 * near this for menus of that shape.
 */
export const KEPT_SHARE = 0.22;

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
export function cheaperMenuThreshold(
  size: MenuSize,
  cachedRatio = CACHED_INPUT_PRICE_RATIO,
  keptShare = KEPT_SHARE,
): number {
  if (keptShare >= cachedRatio) return NEVER_SHORTLIST_TOKENS;
  const fixed = FIXED_PROMPT_TOKENS + size.personaTokens;
  const at = ((1 - cachedRatio) * fixed + (1 - keptShare) * size.pinnedTokens) / (cachedRatio - keptShare);
  // Rounded to a millionth first: 0.25 − 0.22 is not exact in binary, and must not add a token.
  return Math.min(NEVER_SHORTLIST_TOKENS, Math.ceil(Math.round(at * 1e6) / 1e6));
}
