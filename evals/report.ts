import { renderDeadline, summarizeDeadline, type DeadlineSummary } from './deadline-report.js';
import { promptCacheLine, summarizePromptCache, type PromptCacheSummary } from './prompt-cache-report.js';
import { OPENAI_GPT41_CACHE } from './prompt-cache.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CaseResult, TurnObservation } from './run-case.js';
import { fmtMs, fmtPct, fmtRatio, mean, percentile, table } from './stats.js';
import { KIND_LABEL, TURN_KINDS, type TurnKind } from './turn-kind.js';

export interface KindStats {
  kind: TurnKind;
  label: string;
  n: number;
  p50: number;
  p95: number;
  p99: number;
  modelCallsPerTurn: number;
  latencies: number[];
}

/** Time to the turn's own reply (webhook, or the outbox-sent reply of a deferred turn), by script kind. */
export interface ReplyStats {
  label: string;
  n: number;
  p50: number;
  p95: number;
  p99: number;
  deferred: number;
  /** Turns whose reply was never seen (not counted in the percentiles). */
  missing: number;
  values: number[];
}

export interface Summary {
  /** Turns whose model calls all had latencies drawn from the latency model. */
  kinds: KindStats[];
  /** Turns that make model calls (not Yes/No presses, not tenant decisions). */
  turnsTotal: number;
  turnsModelled: number;
  deferred: number;
  deadlinePathTurns: number;
  overhead: { n: number; p50: number; p95: number };
  /** The deferred share by population and cause, and the overhead's parts (evals/deadline-report.ts). */
  deadline: DeadlineSummary;
  baseline: { noTool: ReplyStats; ours: ReplyStats; naive: ReplyStats; ratioOurs: number; ratioNaive: number };
  correctness: {
    cases: number;
    passed: number;
    failed: number;
    variants: number;
    variantsPassed: number;
    variantsFailed: number;
    failedNames: string[];
  };
  redisRoundTrips: { n: number; mean: number; max: number };
  /** Per request after a tenant's first: the share of the prompt identical to its previous request's. */
  /** Requests of cases whose tenant sends the full tool menu every turn. */
  promptReuse: { n: number; mean: number; p50: number; atLeast90: number };
  /** Requests of cases whose turns were shortlisted: the tool list follows the contact's words (tools/shortlist.ts). */
  promptReuseShortlisted: { n: number; mean: number; p50: number; atLeast90: number };
  /** What a provider's prompt cache bills (evals/prompt-cache.ts), full-menu cases and shortlisted ones. */
  promptCache: { fullMenu: PromptCacheSummary; shortlisted: PromptCacheSummary };
  /** Redis round trips before the model, per turn (the reply's path); `warm`: turns after their case's first (the isolate already holds the tenant). */
  beforeModel: { n: number; mean: number; oneOrFewer: number; warm: { n: number; mean: number; oneOrFewer: number } };
  /** Model requests of product turns: steps (`calls`) and the hedges sent beside them (extra calls, billed). */
  hedging: { calls: number; hedges: number; hedgedTurns: number };
}

function stats(kind: KindStats['kind'], turns: TurnObservation[]): KindStats {
  const latencies = turns.map((t) => t.latencyMs!).filter((v) => v !== null && Number.isFinite(v));
  return {
    kind,
    label: KIND_LABEL[kind],
    n: turns.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    modelCallsPerTurn: mean(turns.map((t) => t.modelCalls)),
    latencies,
  };
}

const modelled = (t: TurnObservation) => t.latencyMs !== null && (t.scripted ? t.scripted.modelled : true);
/** Kinds answered without a model call: their rows hold every such turn, and they stay out of the deferred share. */
const NO_MODEL_KINDS: readonly TurnKind[] = ['button-press', 'tenant-decision'];
const withoutModel = (t: TurnObservation) => NO_MODEL_KINDS.includes(t.kind);

function replyStats(label: string, turns: TurnObservation[]): ReplyStats {
  const values = turns.map((t) => t.replyLatencyMs).filter((v): v is number => v !== null && Number.isFinite(v));
  return {
    label,
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    deferred: turns.filter((t) => t.deferred).length,
    missing: turns.length - values.length,
    values,
  };
}

export function summarize(results: CaseResult[]): Summary {
  const product = results.filter((r) => r.variant === 'product');
  const variants = results.filter((r) => r.variant !== 'product');
  const productTurns = product.flatMap((r) => r.turns);
  const m = productTurns.filter((t) => !withoutModel(t) && modelled(t));
  const timed = (k: TurnKind) =>
    NO_MODEL_KINDS.includes(k)
      ? productTurns.filter((t) => t.kind === k && t.latencyMs !== null)
      : m.filter((t) => t.kind === k);
  const kinds = TURN_KINDS.map((k) => stats(k, timed(k)));
  // The baseline compares replies at the ManyChat webhook; a Messenger reply also waits for the outbox (its own row).
  const atWebhook = (t: TurnObservation) => t.kind !== 'messenger';
  const noToolReply = replyStats(
    'no tool (ours)',
    productTurns.filter((t) => atWebhook(t) && t.scriptKind === 'no-tool' && t.scripted?.modelled),
  );
  const ours = replyStats(
    'staging only, ours: stage + reply in one call',
    productTurns.filter((t) => atWebhook(t) && t.scriptKind === 'staging-only' && t.scripted?.modelled),
  );
  const naive = replyStats(
    'staging only, naive loop: tools, then a 2nd call replies',
    variants.flatMap((r) => r.turns).filter((t) => t.naive && t.scripted?.modelled),
  );
  const overheads = productTurns.map((t) => t.overheadMs).filter((v): v is number => v !== null && Number.isFinite(v));
  const trips = productTurns
    .map((t) => (t.record ? t.record.redisRoundTrips.beforeModel + t.record.redisRoundTrips.afterModel : NaN))
    .filter(Number.isFinite);
  const before = productTurns
    .map((t) => (t.record ? t.record.redisRoundTrips.beforeModel : NaN))
    .filter(Number.isFinite);
  const beforeWarm = productTurns
    .map((t) => (t.record && t.index > 0 ? t.record.redisRoundTrips.beforeModel : NaN))
    .filter(Number.isFinite);
  const tripStats = (xs: number[]) => ({
    n: xs.length,
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN,
    oneOrFewer: xs.filter((x) => x <= 1).length,
  });
  const shortlisted = (r: (typeof product)[number]) => r.turns.some((t) => t.record?.shortlist);
  const reuse = product.filter((r) => !shortlisted(r)).flatMap((r) => r.promptReuse ?? []);
  const reuseShortlisted = product.filter(shortlisted).flatMap((r) => r.promptReuse ?? []);
  const reuseStats = (xs: number[]) => ({
    n: xs.length,
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN,
    p50: percentile(xs, 50),
    atLeast90: xs.filter((x) => x >= 0.9).length,
  });
  return {
    kinds,
    turnsTotal: productTurns.filter((t) => !withoutModel(t)).length,
    turnsModelled: m.length,
    deferred: m.filter((t) => t.deferred).length,
    deadlinePathTurns: m.filter((t) => t.scripted?.path === 'deadline').length,
    overhead: { n: overheads.length, p50: percentile(overheads, 50), p95: percentile(overheads, 95) },
    deadline: summarizeDeadline(m),
    baseline: {
      noTool: noToolReply,
      ours,
      naive,
      ratioOurs: ours.p95 / noToolReply.p95,
      ratioNaive: naive.p95 / noToolReply.p95,
    },
    correctness: {
      cases: product.length,
      passed: product.filter((r) => r.passed).length,
      failed: product.filter((r) => !r.passed).length,
      variants: variants.length,
      variantsPassed: variants.filter((r) => r.passed).length,
      variantsFailed: variants.filter((r) => !r.passed).length,
      failedNames: results.filter((r) => !r.passed).map((r) => (r.repeat ? `${r.name}#${r.repeat + 1}` : r.name)),
    },
    redisRoundTrips: { n: trips.length, mean: mean(trips), max: trips.length ? Math.max(...trips) : NaN },
    promptReuse: reuseStats(reuse),
    promptReuseShortlisted: reuseStats(reuseShortlisted),
    promptCache: {
      fullMenu: summarizePromptCache(product.filter((r) => !shortlisted(r))),
      shortlisted: summarizePromptCache(product.filter(shortlisted)),
    },
    beforeModel: { ...tripStats(before), warm: tripStats(beforeWarm) },
    hedging: {
      calls: productTurns.reduce((a, t) => a + t.modelCalls, 0),
      hedges: productTurns.reduce((a, t) => a + t.hedgeCalls, 0),
      hedgedTurns: productTurns.filter((t) => t.hedgeCalls > 0).length,
    },
  };
}

/**
 * Hedging on against off over the same cases and the same draws (`--hedging both`): per turn kind
 * p50/p95/p99, the deferred share and the extra model calls. The latency model draws a hedge
 * independently of the call it races; correlated slowness would shrink the gain.
 */
export function renderHedgingComparison(on: Summary, off: Summary): string {
  const row = (label: string, s: Summary, k: KindStats) => [
    label,
    k.label,
    String(k.n),
    fmtMs(k.p50),
    fmtMs(k.p95),
    fmtMs(k.p99),
  ];
  const rows = on.kinds.flatMap((k, i) =>
    k.n || off.kinds[i]!.n ? [row('off', off, off.kinds[i]!), row('on', on, k)] : [],
  );
  const extra = (s: Summary) =>
    `${s.hedging.hedges} hedges on ${s.hedging.calls} model calls (${fmtPct(s.hedging.hedges, s.hedging.calls)} extra), ${s.hedging.hedgedTurns} turns hedged`;
  return [
    "Hedged model calls — the same cases and draws with hedging off and on (a hedge's latency is an independent draw: an upper bound on the gain when slowness is correlated):",
    table(['hedging', 'turn kind', 'turns', 'p50', 'p95', 'p99'], rows),
    `  deferred share: off ${off.deferred} of ${off.turnsModelled} (${fmtPct(off.deferred, off.turnsModelled)}), on ${on.deferred} of ${on.turnsModelled} (${fmtPct(on.deferred, on.turnsModelled)})`,
    `  turns whose script succeeds (what --estimate draws): off ${off.deadline.succeeding.deferred} of ${off.deadline.succeeding.turns} (${fmtPct(off.deadline.succeeding.deferred, off.deadline.succeeding.turns)}), on ${on.deadline.succeeding.deferred} of ${on.deadline.succeeding.turns} (${fmtPct(on.deadline.succeeding.deferred, on.deadline.succeeding.turns)}); deferred by the runtime's overhead rather than the draw: off ${off.deadline.deferredByOverhead}, on ${on.deadline.deferredByOverhead}`,
    `  extra model calls: on ${extra(on)}; off ${extra(off)}`,
  ].join('\n');
}

export function renderTable(s: Summary, context: { deadlineMs: number; preset: string; live: boolean }): string {
  const rows = s.kinds.map((k) => [
    k.label,
    String(k.n),
    fmtMs(k.p50),
    fmtMs(k.p95),
    fmtMs(k.p99),
    Number.isFinite(k.modelCallsPerTurn) ? k.modelCallsPerTurn.toFixed(2) : '–',
  ]);
  const out = [
    `Turn latency at the webhook (ms), turns whose model calls took ${context.live ? 'real (live) model time — measured' : `SIMULATED model latencies, drawn from the latency model (${context.preset}); the runtime's own time is measured`}:`,
    table(['turn kind', 'turns', 'p50', 'p95', 'p99', 'model calls/turn'], rows),
    `  (${s.turnsModelled} of ${s.turnsTotal} turns with a model call; the other ${s.turnsTotal - s.turnsModelled} had fixed scripted latencies (deadline, error and mechanics cases) and count for correctness and overhead only. The Yes/No press and tenant decision rows hold every such turn: no model call. p99 of fewer than 100 turns is close to the max)`,
    '',
    `Deferred share at the deadline: ${s.deferred} of ${s.turnsModelled} (${fmtPct(s.deferred, s.turnsModelled)}); turns whose drawn model time passed the budget (${s.deadlinePathTurns}) were checked against the deadline path (deferred, or fallback with nothing performed).`,
    ...renderDeadline(s.deadline),
    `Runtime overhead (webhook latency − model time served), all ${s.overhead.n} non-deferred turns: p50 ${fmtMs(s.overhead.p50)} ms, p95 ${fmtMs(s.overhead.p95)} ms`,
    `Redis round trips per turn (turn records): mean ${Number.isFinite(s.redisRoundTrips.mean) ? s.redisRoundTrips.mean.toFixed(2) : '–'}, max ${fmtMs(s.redisRoundTrips.max)} (n=${s.redisRoundTrips.n}); before the model: mean ${Number.isFinite(s.beforeModel.mean) ? s.beforeModel.mean.toFixed(2) : '–'}, ${s.beforeModel.oneOrFewer} of ${s.beforeModel.n} turns at 1 (a case's first turn reads its new tenant); after a case's first turn: mean ${Number.isFinite(s.beforeModel.warm.mean) ? s.beforeModel.warm.mean.toFixed(2) : '–'}, ${s.beforeModel.warm.oneOrFewer} of ${s.beforeModel.warm.n} at 1`,
    `Hedged model calls: ${s.hedging.hedges} hedges on ${s.hedging.calls} model calls (${fmtPct(s.hedging.hedges, s.hedging.calls)} extra), in ${s.hedging.hedgedTurns} turns`,
    `Prompt reuse (what a provider's prompt cache can reuse: the share of each request's prompt — tools, then messages — identical to the tenant's previous request): full tool menu ${reuseLine(s.promptReuse)}; shortlisted turns (the tool list follows the contact's words) ${reuseLine(s.promptReuseShortlisted)}`,
    `Prompt cache (${OPENAI_GPT41_CACHE.source}; tokens are characters / 4) — ${promptCacheLine('full tool menu', s.promptCache.fullMenu)}`,
    `  ${promptCacheLine('shortlisted turns', s.promptCache.shortlisted)}`,
    '',
    "Baseline — time to the turn's reply by script (for a deferred turn: when its reply reached ManyChat), same cases and first-call draws:",
    table(
      ['', 'turns', 'p50', 'p95', 'p99', 'deferred', 'p95 / p95(no tool)'],
      [s.baseline.noTool, s.baseline.ours, s.baseline.naive].map((r, i) => [
        r.label,
        String(r.n),
        fmtMs(r.p50),
        fmtMs(r.p95),
        fmtMs(r.p99),
        String(r.deferred),
        i === 0 ? '1.00×' : fmtRatio(i === 1 ? s.baseline.ratioOurs : s.baseline.ratioNaive),
      ]),
    ),
    `  p95(staging only)/p95(no tool): ours ${fmtRatio(s.baseline.ratioOurs)}, naive loop ${fmtRatio(s.baseline.ratioNaive)}${[s.baseline.noTool, s.baseline.ours, s.baseline.naive].some((r) => r.missing) ? `; replies never seen: ${[s.baseline.noTool, s.baseline.ours, s.baseline.naive].map((r) => r.missing).join('/')}` : ''}. Few turns make tails noisy: use --repeat N, or --estimate.`,
    '',
    `Correctness: ${s.correctness.passed}/${s.correctness.cases} cases passed, ${s.correctness.failed} failed; naive variants ${s.correctness.variantsPassed}/${s.correctness.variants} passed.`,
  ];
  if (s.correctness.failedNames.length) out.push(`Failed: ${s.correctness.failedNames.join(', ')}`);
  return out.join('\n');
}

// ---- SVG ------------------------------------------------------------------------------------------

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A strip plot per turn kind: every turn a dot, p50 and p95 marked, the deadline as a red line. */
export function renderSvg(s: Summary, context: { deadlineMs: number; title: string }): string {
  type Row = { label: string; n: number; p50: number; p95: number; latencies: number[]; color: string };
  const kindColor = (k: TurnKind) => (k === 'deferred' ? '#d33' : k === 'other' ? '#777' : '#2a62b8');
  const rows: Row[] = [
    ...s.kinds.map((k) => ({
      label: `${k.label} (webhook)`,
      n: k.n,
      p50: k.p50,
      p95: k.p95,
      latencies: k.latencies,
      color: kindColor(k.kind),
    })),
    ...[s.baseline.noTool, s.baseline.ours, s.baseline.naive].map((r, i) => ({
      label: ['baseline: no tool', 'baseline: staging, ours', 'baseline: staging, naive 2-call'][i]!,
      n: r.n,
      p50: r.p50,
      p95: r.p95,
      latencies: r.values,
      color: i === 2 ? '#b36b00' : '#2a8a5a',
    })),
  ].filter((r) => r.latencies.length);
  const width = 960;
  const left = 260;
  const right = 30;
  const top = 60;
  const rowH = 56;
  const height = top + Math.max(1, rows.length) * rowH + 60;
  const maxV = Math.max(context.deadlineMs * 1.05, ...rows.flatMap((r) => r.latencies)) || 1000;
  const stepS = maxV > 20_000 ? 5 : maxV > 8000 ? 1 : 0.5;
  const x = (ms: number) => left + ((width - left - right) * ms) / maxV;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="24" font-size="15" font-weight="600">${esc(context.title)}</text>`,
    `<text x="${left}" y="42" fill="#555">per turn kind: webhook latency; baseline rows: time to the turn's reply. ● a turn, ┃ p50, ╎ p95; red: deadline (${(context.deadlineMs / 1000).toFixed(1)} s)</text>`,
  ];
  for (let t = 0; t <= maxV / 1000 + 1e-9; t += stepS) {
    const xx = x(t * 1000);
    parts.push(
      `<line x1="${xx}" y1="${top - 6}" x2="${xx}" y2="${height - 50}" stroke="#eee"/>`,
      `<text x="${xx}" y="${height - 34}" text-anchor="middle" fill="#555">${t.toFixed(stepS < 1 ? 1 : 0)}</text>`,
    );
  }
  parts.push(
    `<text x="${(left + width - right) / 2}" y="${height - 14}" text-anchor="middle" fill="#555">seconds</text>`,
  );
  const dx = x(context.deadlineMs);
  parts.push(`<line x1="${dx}" y1="${top - 10}" x2="${dx}" y2="${height - 50}" stroke="#d33" stroke-width="2"/>`);
  rows.forEach((r, i) => {
    const cy = top + i * rowH + rowH / 2;
    const color = r.color;
    parts.push(
      `<text x="${left - 10}" y="${cy - 4}" text-anchor="end">${esc(r.label)}</text>`,
      `<text x="${left - 10}" y="${cy + 12}" text-anchor="end" fill="#777">n=${r.n} p50 ${fmtMs(r.p50)} p95 ${fmtMs(r.p95)} ms</text>`,
    );
    parts.push(`<line x1="${left}" y1="${cy}" x2="${width - right}" y2="${cy}" stroke="#f3f3f3"/>`);
    r.latencies.forEach((v, j) => {
      const jitter = (((j * 7919) % 17) / 16 - 0.5) * (rowH * 0.5);
      parts.push(
        `<circle cx="${x(v).toFixed(1)}" cy="${(cy + jitter).toFixed(1)}" r="3" fill="${color}" fill-opacity="0.55"/>`,
      );
    });
    if (Number.isFinite(r.p50))
      parts.push(
        `<line x1="${x(r.p50)}" y1="${cy - rowH * 0.4}" x2="${x(r.p50)}" y2="${cy + rowH * 0.4}" stroke="#000" stroke-width="2.5"/>`,
      );
    if (Number.isFinite(r.p95))
      parts.push(
        `<line x1="${x(r.p95)}" y1="${cy - rowH * 0.4}" x2="${x(r.p95)}" y2="${cy + rowH * 0.4}" stroke="#000" stroke-width="1.5" stroke-dasharray="4 3"/>`,
      );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export async function writeText(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

export function reportPaths(dir: string, stamp = new Date().toISOString().replace(/[:.]/g, '-')) {
  return { svg: join(dir, `latency-${stamp}.svg`), latestSvg: join(dir, 'latency-latest.svg') };
}

function reuseLine(r: Summary['promptReuse']): string {
  const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '–');
  return r.n ? `mean ${pct(r.mean)}, p50 ${pct(r.p50)}, ${r.atLeast90} of ${r.n} requests ≥ 90 %` : 'no requests';
}
