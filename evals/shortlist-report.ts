import type { CaseResult, TurnObservation } from './run-case.js';
import { fmtPct, table } from './stats.js';
import { summarizePromptCache, type PromptCacheSummary } from './prompt-cache-report.js';
import { OPENAI_GPT41_CACHE } from './prompt-cache.js';
import { CACHED_INPUT_PRICE_RATIO } from '../tools/menu-cost.js';

/**
 * The tool shortlist on against off (`--shortlist both`), over the cases whose turns it shortlisted
 * (a tenant whose menu passes its `shortlist.maxToolTokens`): whether they pass both ways, the
 * estimated prompt tokens per turn (characters / 4 of every request body, as the model sandbox
 * counts them), and the share of each request identical from the start to the tenant's previous
 * request (what a provider's prompt cache could reuse; evals/prompt-reuse.ts).
 */
export interface ShortlistSide {
  cases: number;
  passed: number;
  /** Turns that made a model call. */
  turns: number;
  /** Turns whose record has a shortlist (0 with it off). */
  shortlistedTurns: number;
  widenedTurns: number;
  requests: number;
  promptTokens: number;
  /** Per request after the tenant's first. */
  prefixShares: number[];
  /** Input tokens as a provider with a prompt cache bills them (evals/prompt-cache.ts). */
  cache: PromptCacheSummary;
  /** Over shortlisted turns: the estimated tokens kept ÷ the full menu's. */
  keptShare: number;
}

export interface ShortlistComparison {
  on: ShortlistSide;
  off: ShortlistSide;
  perCase: {
    name: string;
    turns: number;
    tokensOn: number;
    tokensOff: number;
    shareOn: number;
    shareOff: number;
    passedOn: boolean;
    passedOff: boolean;
  }[];
}

const withModel = (t: TurnObservation) => t.modelCalls > 0;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

function side(results: CaseResult[]): ShortlistSide {
  const turns = results.flatMap((r) => r.turns).filter(withModel);
  return {
    cases: results.length,
    passed: results.filter((r) => r.passed).length,
    turns: turns.length,
    shortlistedTurns: turns.filter((t) => t.record?.shortlist).length,
    widenedTurns: turns.filter((t) => t.record?.shortlist?.widened).length,
    requests: turns.reduce((a, t) => a + t.modelCalls, 0),
    promptTokens: turns.reduce((a, t) => a + (t.promptTokens ?? 0), 0),
    prefixShares: results.flatMap((r) => r.promptReuse ?? []),
    cache: summarizePromptCache(results),
    keptShare: mean(
      turns.flatMap((t) => {
        const sl = t.record?.shortlist;
        return sl?.keptTokens !== undefined && sl.fullTokens > 0 ? [sl.keptTokens / sl.fullTokens] : [];
      }),
    ),
  };
}

/** `on`: the product cases with the shortlist as configured; `off`: the same cases with it off. Only cases it shortlisted count. */
export function compareShortlist(on: CaseResult[], off: CaseResult[]): ShortlistComparison {
  const key = (r: CaseResult) => `${r.name}|${r.repeat}`;
  const listed = on.filter((r) => r.variant === 'product' && r.turns.some((t) => t.record?.shortlist));
  const offBy = new Map(off.filter((r) => r.variant === 'product').map((r) => [key(r), r]));
  const pairs = listed.flatMap((r) => (offBy.has(key(r)) ? [[r, offBy.get(key(r))!] as const] : []));
  const perTurn = (r: CaseResult) => {
    const turns = r.turns.filter(withModel);
    return turns.length ? turns.reduce((a, t) => a + (t.promptTokens ?? 0), 0) / turns.length : NaN;
  };
  return {
    on: side(pairs.map(([a]) => a)),
    off: side(pairs.map(([, b]) => b)),
    perCase: pairs.map(([a, b]) => ({
      name: a.repeat ? `${a.name}#${a.repeat + 1}` : a.name,
      turns: a.turns.filter(withModel).length,
      tokensOn: perTurn(a),
      tokensOff: perTurn(b),
      shareOn: mean(a.promptReuse ?? []),
      shareOff: mean(b.promptReuse ?? []),
      passedOn: a.passed,
      passedOff: b.passed,
    })),
  };
}

const tok = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : '–');
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '–');

export function renderShortlistComparison(c: ShortlistComparison): string {
  if (!c.on.cases)
    return 'Tool shortlist: no case was shortlisted (no tenant menu passed its shortlist.maxToolTokens); nothing to compare.';
  const warmOff = c.off.cache.warmEffectiveTokens / c.off.turns;
  const warmOn = c.on.cache.effectiveTokens / c.on.turns;
  const row = (label: string, s: ShortlistSide) => [
    label,
    `${s.passed}/${s.cases}`,
    `${s.shortlistedTurns}/${s.turns}`,
    String(s.widenedTurns),
    tok(s.promptTokens / s.turns),
    tok(s.promptTokens / s.requests),
    `${pct(mean(s.prefixShares))} (n=${s.prefixShares.length})`,
    tok(s.cache.cachedTokens / s.turns),
    tok(s.cache.effectiveTokens / s.turns),
    tok((label === 'off' ? s.cache.warmEffectiveTokens : s.cache.effectiveTokens) / s.turns),
  ];
  return [
    "Tool shortlist — the cases it shortlisted, with it on and off (tokens: characters / 4 of each request body; prefix share: of each request after the tenant's first, the share identical from the start to the previous request):",
    table(
      [
        'shortlist',
        'cases passed',
        'turns shortlisted',
        'widened',
        'prompt tokens/turn',
        'tokens/request',
        'cacheable prefix share',
        'cached tokens/turn',
        `effective input tokens/turn (cached at ${OPENAI_GPT41_CACHE.cachedInputRatio}×)`,
        'same, warm cache (off: the menu cached by other contacts; on: as measured)',
      ],
      [row('off', c.off), row('on', c.on)],
    ),
    `  which is cheaper with a warm cache: ${warmOff <= warmOn ? 'the full menu' : 'the shortlist'} (${tok(warmOff)} against ${tok(warmOn)} effective input tokens a turn). The default (tools/menu-cost.ts) shortlists only past the menu size where the shortlist costs less than the full menu cached at ${CACHED_INPUT_PRICE_RATIO}×. A shortlisted turn kept ${pct(c.on.keptShare)} of the menu's estimated tokens`,
    `  prompt tokens over these turns: ${c.off.promptTokens} off, ${c.on.promptTokens} on (${fmtPct(c.off.promptTokens - c.on.promptTokens, c.off.promptTokens)} fewer with the shortlist); effective input tokens with a prompt cache: ${Math.round(c.off.cache.effectiveTokens)} off, ${Math.round(c.on.cache.effectiveTokens)} on (each case's tenant starts cold); with the full menu already cached by the tenant's other contacts: ${Math.round(c.off.cache.warmEffectiveTokens)} off`,
    table(
      ['case', 'turns', 'tokens/turn off', 'on', 'prefix share off', 'on', 'passed off/on'],
      c.perCase.map((p) => [
        p.name,
        String(p.turns),
        tok(p.tokensOff),
        tok(p.tokensOn),
        pct(p.shareOff),
        pct(p.shareOn),
        `${p.passedOff ? '✓' : '✗'}/${p.passedOn ? '✓' : '✗'}`,
      ]),
    ),
  ].join('\n');
}
