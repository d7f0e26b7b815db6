import type { TurnObservation } from './turn-observation.js';
import { fmtMs, fmtPct, percentile } from './stats.js';

/**
 * Why turns missed the deadline, and where the runtime's own time goes (issue 34 goal 4). The
 * offline estimate (`--estimate`) draws only turns whose script succeeds; the stack also times
 * turns whose model call is scripted to fail slowly (an error a hedge cannot rescue: both calls
 * fail), so its deferred share is reported for both populations. A deferred turn whose drawn model
 * time (with its hedge) alone passed the budget was deferred by the draw; one that did not was
 * deferred by the runtime's overhead.
 */
export interface DeadlineSummary {
  succeeding: { turns: number; deferred: number };
  failing: { turns: number; deferred: number };
  deferredByDraw: number;
  deferredByOverhead: number;
  /** Per non-deferred modelled turn, ms: p50/p95 of each part of (webhook latency − model time served). */
  parts: Record<OverheadPart, { p50: number; p95: number }>;
  partsN: number;
}

export type OverheadPart =
  'outside the turn' | 'before the model' | 'model calls beyond served' | 'guardrails' | 'commit';

function partsOf(t: TurnObservation): Record<OverheadPart, number> | null {
  const r = t.record?.timings;
  if (!r || t.latencyMs === null) return null;
  return {
    // The HTTP exchange with wrangler dev, authentication, the tenant lookup and the response.
    'outside the turn': t.latencyMs - r.totalMs,
    // The claim with history (one Redis round trip), the prompt and the tools.
    'before the model': r.loadMs,
    // The AI SDK, the provider's HTTP and JSON, a hedge's bookkeeping: the loop's time less what the sandbox served.
    'model calls beyond served': r.modelMs - t.modelMs,
    guardrails: r.guardrailsMs,
    commit: r.commitMs,
  };
}

export function summarizeDeadline(modelled: readonly TurnObservation[]): DeadlineSummary {
  const succeeding = modelled.filter((t) => t.scriptKind !== null);
  const failing = modelled.filter((t) => t.scriptKind === null);
  const deferred = modelled.filter((t) => t.deferred);
  const byDraw = deferred.filter(
    (t) => t.scripted && t.scripted.effective.reduce((a, b) => a + b, 0) > t.scripted.budgetMs,
  );
  const measured = modelled
    .filter((t) => !t.deferred)
    .map(partsOf)
    .filter((p): p is Record<OverheadPart, number> => p !== null);
  const names: OverheadPart[] = [
    'outside the turn',
    'before the model',
    'model calls beyond served',
    'guardrails',
    'commit',
  ];
  const parts = Object.fromEntries(
    names.map((n) => {
      const xs = measured.map((p) => p[n]);
      return [n, { p50: percentile(xs, 50), p95: percentile(xs, 95) }];
    }),
  ) as DeadlineSummary['parts'];
  return {
    succeeding: { turns: succeeding.length, deferred: succeeding.filter((t) => t.deferred).length },
    failing: { turns: failing.length, deferred: failing.filter((t) => t.deferred).length },
    deferredByDraw: byDraw.length,
    deferredByOverhead: deferred.length - byDraw.length,
    parts,
    partsN: measured.length,
  };
}

export function renderDeadline(d: DeadlineSummary): string[] {
  const parts = Object.entries(d.parts)
    .map(([n, v]) => `${n} ${fmtMs(v.p50)} / ${fmtMs(v.p95)}`)
    .join(' · ');
  return [
    `  of them: turns whose script succeeds (what --estimate draws) ${d.succeeding.deferred} of ${d.succeeding.turns} deferred (${fmtPct(d.succeeding.deferred, d.succeeding.turns)}); turns whose model call is scripted to fail after its drawn time (a hedge fails too) ${d.failing.deferred} of ${d.failing.turns}. Deferred by the draw (model time with its hedge past the budget) ${d.deferredByDraw}, by the runtime's overhead ${d.deferredByOverhead}.`,
    `  Where the overhead goes, p50 / p95 ms over ${d.partsN} non-deferred modelled turns: ${parts}`,
  ];
}
