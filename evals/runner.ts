import { demoTenantConfig } from '../dev/demo-tenant.js';
import type { TenantConfig, TenantConfigInput } from '../core/tenant/tenant-config.js';
import { deepMerge, loadCases, parseCase, type CaseTurn, type EvalCase } from './case-format.js';
import { startEvalEnvironment, type EvalEnvironment } from './environment.js';
import { presetFor } from './latency-model.js';
import { runCase, type CaseResult } from './run-case.js';
import { summarize, type Summary } from './report.js';
import { compareShortlist, type ShortlistComparison } from './shortlist-report.js';
import { readToolNames, scriptKind } from './turn-kind.js';

export interface EvalOptions {
  casesDir: string;
  repeat?: number;
  concurrency?: number;
  live?: boolean;
  seed?: string;
  preset?: string;
  /** Run the naive two-step variants of staging-only cases (default true; never with --live). */
  baseline?: boolean;
  /** Only cases whose name contains this. */
  filter?: string;
  /** Tenants hedge slow model calls ('on', the product default), or not, or every product case runs both ways to compare (default 'on'). */
  hedging?: 'on' | 'off' | 'both';
  /**
   * The tool shortlist as each case's tenant configures it ('on', the default), off for every
   * tenant (the full menu), or every product case both ways to compare. Not 'both' with hedging 'both'.
   */
  shortlist?: 'on' | 'off' | 'both';
  /** Run two throwaway turns first so isolate start-up and script loading do not land in the first cases (default true). */
  warmup?: boolean;
  /** Reuse a running environment (tests); otherwise one is started and closed. */
  environment?: EvalEnvironment;
  log?: (line: string) => void;
  /** Called after each case. */
  onResult?: (r: CaseResult) => void;
}

export interface EvalRun {
  startedAt: string;
  ms: number;
  options: {
    casesDir: string;
    repeat: number;
    concurrency: number;
    live: boolean;
    seed: string;
    preset: string;
    baseline: boolean;
    hedging: 'on' | 'off' | 'both';
    shortlist: 'on' | 'off' | 'both';
  };
  cases: number;
  notRunLive: string[];
  /** Errors the Worker logged during the run (distinct). */
  workerErrors: string[];
  results: CaseResult[];
  /** The product as configured (hedging on, unless the run said off). */
  summary: Summary;
  /** With `hedging: 'both'`: the same product cases with hedging off (naive variants are not rerun). */
  summaryWithoutHedging: Summary | null;
  /** With `shortlist: 'both'`: the same product cases with the shortlist off (naive variants are not rerun). */
  summaryWithoutShortlist: Summary | null;
  /** With `shortlist: 'both'`: the cases whose turns were shortlisted, on against off (tokens, prefix share, passes). */
  shortlistComparison: ShortlistComparison | null;
}

function readToolsOf(c: EvalCase): Set<string> {
  const config = deepMerge<TenantConfigInput>(demoTenantConfig('x'), c.tenant.overrides);
  return readToolNames({ tools: (config.tools ?? []) as TenantConfig['tools'] });
}

/**
 * The naive loop's version of a staging-only case: the model stages in call 1 and writes the reply
 * in call 2 (the AI SDK default pattern: tools execute, then another call answers). Our product
 * runs that script in two calls too, so the comparison is the same code path with one call more.
 * Null when the case has no staging-only turn (or opts out with `"baseline": false`).
 */
export function naiveVariant(c: EvalCase): (EvalCase & { naiveTurns: number[] }) | null {
  if (c.baseline === false || c.channel !== 'manychat') return null;
  const reads = readToolsOf(c);
  const kinds = c.turns.map((t) => scriptKind(t, reads));
  if (!kinds.includes('staging-only')) return null;
  if (c.baseline !== true && !kinds.every((k) => k === 'staging-only')) return null;
  const turns: CaseTurn[] = c.turns.map((t, i) => {
    if (kinds[i] !== 'staging-only') return t;
    const step = t.model[0]!;
    const { reply, calls, ...timing } = step;
    return {
      ...t,
      model: [
        { ...timing, ...(calls ? { calls } : {}) },
        { ...(step.latencyMs !== undefined ? { latencyMs: step.latencyMs } : {}), ...(reply ? { reply } : {}) },
      ],
      expect: { ...t.expect, modelCalls: 2 },
    };
  });
  return { ...c, turns, naiveTurns: kinds.flatMap((k, i) => (k === 'staging-only' ? [i] : [])) };
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await run(item);
    }
  });
  await Promise.all(workers);
}

/** Loads the cases, runs them (and their naive variants) through the real Worker, and summarizes. */
export async function runEval(opts: EvalOptions): Promise<EvalRun> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const live = opts.live ?? false;
  const options = {
    casesDir: opts.casesDir,
    repeat: opts.repeat ?? 1,
    concurrency: opts.concurrency ?? 8,
    live,
    seed: opts.seed ?? '1',
    preset: opts.preset ?? 'gpt-4.1-mini',
    baseline: !live && (opts.baseline ?? true),
    hedging: opts.hedging ?? 'on',
    shortlist: opts.shortlist ?? 'on',
  };
  // One comparison a run: crossing both would need four runs of every case.
  if (options.hedging === 'both' && options.shortlist === 'both')
    throw new Error("hedging 'both' and shortlist 'both' cannot be combined: compare one at a time");
  const hedging = options.hedging !== 'off';
  const shortlist = options.shortlist !== 'off';
  const preset = presetFor(options.preset);
  const all = (await loadCases(opts.casesDir)).filter((c) => !opts.filter || c.name.includes(opts.filter));
  // A filter that selects nothing is a mistake, not a green run.
  if (!all.length)
    throw new NoCasesSelected(
      opts.filter ? `--filter "${opts.filter}" matches no case in ${opts.casesDir}` : `no case in ${opts.casesDir}`,
    );
  const notRunLive = live ? all.filter((c) => c.scriptedOnly).map((c) => c.name) : [];
  const cases = live ? all.filter((c) => !c.scriptedOnly) : all;

  type Job = {
    c: EvalCase;
    variant: 'product' | 'naive-2-step';
    repeat: number;
    drawKey: string;
    naiveTurns?: number[];
    hedging: boolean;
    shortlist: boolean;
  };
  const jobs: Job[] = [];
  for (let repeat = 0; repeat < options.repeat; repeat++) {
    for (const c of cases) {
      jobs.push({ c, variant: 'product', repeat, drawKey: c.name, hedging, shortlist });
      // The same draws with hedging (or the shortlist) off: the comparison is paired, turn by turn.
      if (options.hedging === 'both')
        jobs.push({ c, variant: 'product', repeat, drawKey: c.name, hedging: false, shortlist });
      if (options.shortlist === 'both')
        jobs.push({ c, variant: 'product', repeat, drawKey: c.name, hedging, shortlist: false });
      const naive = options.baseline ? naiveVariant(c) : null;
      if (naive)
        jobs.push({
          c: naive,
          variant: 'naive-2-step',
          repeat,
          drawKey: c.name,
          naiveTurns: naive.naiveTurns,
          hedging,
          shortlist,
        });
    }
  }

  const env = opts.environment ?? (await startEvalEnvironment({ live, ...(opts.log ? { log: opts.log } : {}) }));
  const results: CaseResult[] = [];
  try {
    if (opts.warmup ?? true) {
      const warm = parseCase(
        { turns: [0, 1].map((i) => ({ text: `warm-up ${i}`, model: [{ reply: { text: 'ok' }, latencyMs: 0 }] })) },
        '(warm-up)',
      );
      await runCase(env, warm, {
        preset,
        seed: options.seed,
        repeat: 0,
        variant: 'product',
        drawKey: 'warm-up',
        hedging,
        shortlist,
      });
    }
    await pool(jobs, options.concurrency, async (job) => {
      const r = await runCase(env, job.c, {
        preset,
        seed: options.seed,
        repeat: job.repeat,
        variant: job.variant,
        drawKey: job.drawKey,
        hedging: job.hedging,
        shortlist: job.shortlist,
        ...(job.naiveTurns ? { naiveTurns: job.naiveTurns } : {}),
      });
      results.push(r);
      opts.onResult?.(r);
    });
  } finally {
    if (!opts.environment) await env.close();
  }
  const order = new Map(jobs.map((j, i) => [`${j.c.name}|${j.variant}|${j.repeat}|${j.hedging}|${j.shortlist}`, i]));
  const key = (r: CaseResult) =>
    `${r.variant === 'product' ? r.name : r.name.replace(/~naive$/, '')}|${r.variant}|${r.repeat}|${r.hedging}|${r.shortlist}`;
  results.sort((a, b) => (order.get(key(a)) ?? 0) - (order.get(key(b)) ?? 0));
  const main = results.filter((r) => r.hedging === hedging && r.shortlist === shortlist);
  const without = options.hedging === 'both' ? results.filter((r) => !r.hedging) : null;
  const full = options.shortlist === 'both' ? results.filter((r) => !r.shortlist) : null;
  return {
    startedAt,
    ms: performance.now() - started,
    options,
    cases: cases.length,
    notRunLive,
    workerErrors: [...env.workerErrors],
    results,
    summary: summarize(main),
    summaryWithoutHedging: without ? summarize(without) : null,
    summaryWithoutShortlist: full ? summarize(full) : null,
    shortlistComparison: full ? compareShortlist(main, full) : null,
  };
}

/** Nothing to run: the command line names no case (exit 2, like any usage error). */
export class NoCasesSelected extends Error {
  override name = 'NoCasesSelected';
}
