import { demoTenantConfig } from '../dev/demo-tenant.js';
import { TenantConfigSchema, type TenantConfig, type TenantConfigInput } from '../core/tenant/tenant-config.js';
import { deepMerge, loadCases, replyInput, type CaseStep } from './case-format.js';
import {
  drawStep,
  mulberry32,
  responseBudgetMs,
  outputTokensOf,
  presetFor,
  promptTokensOf,
  seedOf,
  type LatencyPreset,
} from './latency-model.js';
import { hedgeDelayMs } from '../src/models/hedge-timing.js';
import { fmtMs, fmtPct, fmtRatio, percentile, table } from './stats.js';
import { KIND_LABEL, readToolNames, scriptKind, type TurnKind } from './turn-kind.js';

/**
 * Offline estimate (no stack): every scripted turn of the cases is simulated `draws` times with
 * model latencies from the latency model, plus a fixed runtime overhead. Per turn kind: p50, p95,
 * p99 of the time a turn takes (uncapped) and the share that would pass the deadline (model time
 * over the model budget = deferred, or the fallback). Staging-only turns are also simulated as
 * the naive loop (stage in call 1, reply in call 2).
 */
export interface EstimateOptions {
  casesDir: string;
  draws?: number;
  seed?: string;
  preset?: string;
  deadlineMs?: number;
  /** Runtime overhead added to every turn (ms); measure it with `npm run eval`. */
  overheadMs?: number;
  /** Hedge a step not answered after this long at the latest (ms); default the tenant default (hedging.afterMs); 0: no hedging row. */
  hedgeAfterMs?: number;
  /** Hedge no later than this before the answer is due (ms); default the tenant default (hedging.freshCallMs). */
  hedgeFreshCallMs?: number;
}

export interface EstimateRow {
  kind: Exclude<TurnKind, 'deferred'> | 'staging-only-naive';
  label: string;
  turns: number;
  p50: number;
  p95: number;
  p99: number;
  pastDeadline: number;
  samples: number;
  /** The same draws with hedging (a hedge's latency drawn independently): tail, deferred share, extra calls. */
  hedged?: { p95: number; p99: number; pastDeadline: number; steps: number; hedges: number };
}

export interface Estimate {
  preset: LatencyPreset;
  deadlineMs: number;
  budgetMs: number;
  overheadMs: number;
  draws: number;
  rows: EstimateRow[];
  overall: { samples: number; pastDeadline: number };
  ratio: { ours: number; naive: number };
  skippedTurns: number;
  hedgeAfterMs: number;
  hedgeFreshCallMs: number;
  /** All product kinds with hedging: past the deadline, and hedges per model call. */
  hedgedOverall: { pastDeadline: number; steps: number; hedges: number } | null;
}

function outTokens(step: Pick<CaseStep, 'calls' | 'text'> & { reply?: unknown }): number {
  const calls = (step.calls ?? []).map((c) => ({
    tool: c.tool,
    argumentsText: c.arguments ?? JSON.stringify(c.input ?? {}),
  }));
  if (step.reply !== undefined) calls.push({ tool: 'reply', argumentsText: JSON.stringify(step.reply) });
  return outputTokensOf(calls, step.text ?? '');
}

export async function estimate(opts: EstimateOptions): Promise<Estimate> {
  const preset = presetFor(opts.preset);
  const draws = opts.draws ?? 20_000;
  const deadlineMs = opts.deadlineMs ?? 8000;
  const budgetMs = responseBudgetMs(deadlineMs);
  const overheadMs = opts.overheadMs ?? 40;
  const hedgeAfterMs = opts.hedgeAfterMs ?? demoTenantConfigDefaults().hedging.afterMs;
  const hedgeFreshCallMs = opts.hedgeFreshCallMs ?? demoTenantConfigDefaults().hedging.freshCallMs;
  const seed = opts.seed ?? '1';
  const cases = await loadCases(opts.casesDir);
  type Hedged = { values: number[]; past: number; steps: number; hedges: number };
  const samples = new Map<EstimateRow['kind'], { values: number[]; past: number; turns: number; hedged: Hedged }>();
  const add = (kind: EstimateRow['kind'], values: number[], past: number, hedged?: Hedged) => {
    const s = samples.get(kind) ?? {
      values: [],
      past: 0,
      turns: 0,
      hedged: { values: [], past: 0, steps: 0, hedges: 0 },
    };
    s.values.push(...values);
    s.past += past;
    s.turns++;
    if (hedged) {
      s.hedged.values.push(...hedged.values);
      s.hedged.past += hedged.past;
      s.hedged.steps += hedged.steps;
      s.hedged.hedges += hedged.hedges;
    }
    samples.set(kind, s);
  };
  let skipped = 0;
  for (const c of cases) {
    // A Messenger turn is answered at once and has no webhook deadline: not part of these kinds.
    if (c.channel === 'messenger') {
      skipped += c.turns.length;
      continue;
    }
    const config = deepMerge<TenantConfigInput>(demoTenantConfig('x'), c.tenant.overrides);
    const reads = readToolNames({ tools: (config.tools ?? []) as TenantConfig['tools'] });
    for (const [ti, turn] of c.turns.entries()) {
      const kind = scriptKind(turn, reads);
      if (!kind) {
        skipped++;
        continue;
      }
      const steps = turn.model.slice(0, turn.expect.modelCalls ?? 2).map((s) => ({ ...s, reply: replyInput(s) }));
      // A script the product must not call at all (`modelCalls: 0`, e.g. a contact with a human): no model time to draw.
      if (!steps.length) {
        skipped++;
        continue;
      }
      const rand = mulberry32(seedOf(seed, 'estimate', c.name, ti));
      const hedgeRand = mulberry32(seedOf(seed, 'estimate-hedge', c.name, ti));
      const hedged: Hedged = { values: [], past: 0, steps: 0, hedges: 0 };
      const ours: number[] = [];
      const naive: number[] = [];
      let past = 0;
      let pastNaive = 0;
      for (let d = 0; d < draws; d++) {
        let model = 0;
        let modelHedged = 0;
        steps.forEach((s, i) => {
          const ms = drawStep(preset, rand, promptTokensOf(i, ti), outTokens(s)).totalMs;
          model += ms;
          // The same step hedged: a second call when the runtime would send it (src/models/hedge-timing.ts:
          // hedgeAfterMs, or sooner when the answer is due in less than that plus freshCallMs), its
          // latency an independent draw.
          const hedgeMs = drawStep(preset, hedgeRand, promptTokensOf(i, ti), outTokens(s)).totalMs;
          const at = hedgeDelayMs(
            { afterMs: hedgeAfterMs, freshCallMs: hedgeFreshCallMs },
            budgetMs - overheadMs - modelHedged,
          );
          const hedging = hedgeAfterMs > 0 && ms > at;
          modelHedged += hedging ? Math.min(ms, at + hedgeMs) : ms;
          hedged.steps++;
          if (hedging) hedged.hedges++;
        });
        if (model + overheadMs > budgetMs) past++;
        ours.push(model + overheadMs);
        if (modelHedged + overheadMs > budgetMs) hedged.past++;
        hedged.values.push(modelHedged + overheadMs);
        if (kind === 'staging-only') {
          const s = steps[0]!;
          const two =
            drawStep(preset, rand, promptTokensOf(0, ti), outTokens({ calls: s.calls })).totalMs +
            drawStep(preset, rand, promptTokensOf(1, ti), outTokens({ reply: s.reply })).totalMs;
          if (two + overheadMs > budgetMs) pastNaive++;
          naive.push(two + overheadMs);
        }
      }
      add(kind, ours, past, hedged);
      if (kind === 'staging-only') add('staging-only-naive', naive, pastNaive);
    }
  }
  const order: EstimateRow['kind'][] = ['no-tool', 'staging-only', 'read-then-reply', 'other', 'staging-only-naive'];
  const rows: EstimateRow[] = order
    .filter((k) => samples.has(k))
    .map((kind) => {
      const s = samples.get(kind)!;
      return {
        kind,
        label: kind === 'staging-only-naive' ? 'staging only — naive 2-step baseline' : KIND_LABEL[kind],
        turns: s.turns,
        p50: percentile(s.values, 50),
        p95: percentile(s.values, 95),
        p99: percentile(s.values, 99),
        pastDeadline: s.past,
        samples: s.values.length,
        ...(kind !== 'staging-only-naive' && hedgeAfterMs > 0
          ? {
              hedged: {
                p95: percentile(s.hedged.values, 95),
                p99: percentile(s.hedged.values, 99),
                pastDeadline: s.hedged.past,
                steps: s.hedged.steps,
                hedges: s.hedged.hedges,
              },
            }
          : {}),
      };
    });
  const product = rows.filter((r) => r.kind !== 'staging-only-naive');
  const p95 = (k: EstimateRow['kind']) => rows.find((r) => r.kind === k)?.p95 ?? NaN;
  return {
    preset,
    deadlineMs,
    budgetMs,
    overheadMs,
    draws,
    rows,
    overall: {
      samples: product.reduce((a, r) => a + r.samples, 0),
      pastDeadline: product.reduce((a, r) => a + r.pastDeadline, 0),
    },
    ratio: { ours: p95('staging-only') / p95('no-tool'), naive: p95('staging-only-naive') / p95('no-tool') },
    skippedTurns: skipped,
    hedgeAfterMs,
    hedgeFreshCallMs,
    hedgedOverall:
      hedgeAfterMs > 0
        ? {
            pastDeadline: product.reduce((a, r) => a + (r.hedged?.pastDeadline ?? 0), 0),
            steps: product.reduce((a, r) => a + (r.hedged?.steps ?? 0), 0),
            hedges: product.reduce((a, r) => a + (r.hedged?.hedges ?? 0), 0),
          }
        : null,
  };
}

function demoTenantConfigDefaults(): TenantConfig {
  return TenantConfigSchema.parse(demoTenantConfig('x'));
}

export function renderEstimate(e: Estimate): string {
  return [
    `Offline estimate — latency model ${e.preset.id} (TTFT median ${e.preset.ttftMedianMs} ms @${e.preset.refPromptTokens} prompt tokens, p95/p50 ${e.preset.ttftP95OverP50}, ${e.preset.speedMedianTps} tok/s), ${e.draws} draws per scripted turn,`,
    `runtime overhead ${e.overheadMs} ms, deadline ${e.deadlineMs} ms (the webhook answers by ${e.budgetMs} ms). No stack was started.`,
    table(
      ['turn kind', 'turns', 'p50', 'p95', 'p99', 'past deadline'],
      e.rows.map((r) => [
        r.label,
        String(r.turns),
        fmtMs(r.p50),
        fmtMs(r.p95),
        fmtMs(r.p99),
        fmtPct(r.pastDeadline, r.samples),
      ]),
    ),
    `Deferred share at the deadline (all kinds, equal weight per scripted turn): ${fmtPct(e.overall.pastDeadline, e.overall.samples)}`,
    ...(e.hedgedOverall
      ? [
          '',
          `The same draws with hedged model calls (a step not answered after ${e.hedgeAfterMs} ms, or after what is left before the answer is due less ${e.hedgeFreshCallMs} ms when that is sooner, is sent again; the hedge's latency is an independent draw, so correlated slowness would gain less):`,
          table(
            [
              'turn kind',
              'p95 off',
              'p95 on',
              'p99 off',
              'p99 on',
              'past deadline off',
              'past deadline on',
              'extra calls',
            ],
            e.rows
              .filter((r) => r.hedged)
              .map((r) => [
                r.label,
                fmtMs(r.p95),
                fmtMs(r.hedged!.p95),
                fmtMs(r.p99),
                fmtMs(r.hedged!.p99),
                fmtPct(r.pastDeadline, r.samples),
                fmtPct(r.hedged!.pastDeadline, r.samples),
                fmtPct(r.hedged!.hedges, r.hedged!.steps),
              ]),
          ),
          `Deferred share with hedging: ${fmtPct(e.hedgedOverall.pastDeadline, e.overall.samples)} (off: ${fmtPct(e.overall.pastDeadline, e.overall.samples)}), for ${fmtPct(e.hedgedOverall.hedges, e.hedgedOverall.steps)} extra model calls`,
        ]
      : []),
    `p95(staging only) / p95(no tool): ours ${fmtRatio(e.ratio.ours)}, naive 2-step ${fmtRatio(e.ratio.naive)}`,
    e.skippedTurns
      ? `(${e.skippedTurns} turns without a model call, with a scripted model error, or on Messenger (no webhook deadline) were left out)`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}
