import type { CaseResult } from './run-case.js';
import { OPENAI_GPT41_CACHE, type RequestCacheUse } from './prompt-cache.js';
import { percentile } from './stats.js';

/** What a prompt cache makes of a set of cases' requests (evals/prompt-cache.ts): shares and billed input tokens. */
export interface PromptCacheSummary {
  requests: number;
  /** Turns with a model call: effective tokens per turn divide by these. */
  turns: number;
  /** Requests after their tenant's first whose tools and instructions are the previous request's. */
  menuUnchanged: number;
  /** Over those: the share identical from the start to the best-matching earlier request. */
  bestShareMean: number;
  bestShareP50: number;
  atLeast95: number;
  /** Over the same requests: of the bytes repeated from earlier requests, the share in the reusable start (the layout's part). */
  repeatedInPrefixMean: number;
  repeatedInPrefixAtLeast95: number;
  promptTokens: number;
  cachedTokens: number;
  effectiveTokens: number;
  /** With a warm cache (the tenant's tools and instructions sent by another contact already). */
  warmCachedTokens: number;
  warmEffectiveTokens: number;
}

const withModel = (r: CaseResult) => r.turns.filter((t) => t.modelCalls > 0).length;

export function summarizePromptCache(results: readonly CaseResult[]): PromptCacheSummary {
  const uses: RequestCacheUse[] = results.flatMap((r) => r.promptCache ?? []);
  const same = uses.filter((u) => u.menuUnchanged);
  const unchanged = same.map((u) => u.bestShare);
  const layout = same.map((u) => u.repeatedInPrefix);
  const sum = (f: (u: RequestCacheUse) => number) => uses.reduce((a, u) => a + f(u), 0);
  return {
    requests: uses.length,
    turns: results.reduce((a, r) => a + withModel(r), 0),
    menuUnchanged: unchanged.length,
    bestShareMean: unchanged.length ? unchanged.reduce((a, b) => a + b, 0) / unchanged.length : NaN,
    bestShareP50: percentile(unchanged, 50),
    atLeast95: unchanged.filter((x) => x >= 0.95).length,
    repeatedInPrefixMean: layout.length ? layout.reduce((a, b) => a + b, 0) / layout.length : NaN,
    repeatedInPrefixAtLeast95: layout.filter((x) => x >= 0.95).length,
    promptTokens: sum((u) => u.promptTokens),
    cachedTokens: sum((u) => u.cachedTokens),
    effectiveTokens: sum((u) => u.effectiveTokens),
    warmCachedTokens: sum((u) => u.warmCachedTokens),
    warmEffectiveTokens: sum((u) => u.warmEffectiveTokens),
  };
}

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '–');
const per = (total: number, n: number) => (n ? String(Math.round(total / n)) : '–');

/** One line: the cacheable share where the menu did not change, and input tokens as billed with the cache. */
export function promptCacheLine(label: string, s: PromptCacheSummary): string {
  if (!s.requests) return `${label}: no requests`;
  return (
    `${label}: identical from the start to an earlier request of the tenant, where the tools and instructions did not change: mean ${pct(s.bestShareMean)}, p50 ${pct(s.bestShareP50)}, ${s.atLeast95} of ${s.menuUnchanged} requests ≥ 95 %; of the bytes they repeat from earlier requests, in that identical start: mean ${pct(s.repeatedInPrefixMean)}, ${s.repeatedInPrefixAtLeast95} of ${s.menuUnchanged} ≥ 95 %; ` +
    `input tokens per turn ${per(s.promptTokens, s.turns)}, of which cached ${per(s.cachedTokens, s.turns)} → effective ${per(s.effectiveTokens, s.turns)} ` +
    `(${pct(s.cachedTokens / s.promptTokens)} cached, billed at ${OPENAI_GPT41_CACHE.cachedInputRatio}×); ` +
    `with a warm cache (another contact of the tenant sent the same tools and instructions within the cache's lifetime) cached ${per(s.warmCachedTokens, s.turns)} → effective ${per(s.warmEffectiveTokens, s.turns)}`
  );
}
