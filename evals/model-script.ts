import type { ScriptStep } from '../dev/model-sandbox.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { replyInput, type CaseStep, type CaseTurn, type Expectation, type ExpectationCore } from './case-format.js';
import { drawStep, mulberry32, outputTokensOf, promptTokensOf, responseBudgetMs, seedOf } from './latency-model.js';
import type { DeadlinePath, RunCaseOptions } from './turn-observation.js';
import { hedgeDelayMs, type HedgeTiming } from '../src/models/hedge-timing.js';

/**
 * A turn's scripted model steps as the model sandbox serves them, with their latencies (fixed, or
 * drawn from the latency model), and what a drawn latency past the deadline means for the checks.
 */

/** A step's model-sandbox form, with its latency fixed (drawn when the case did not fix it). */
export function resolveStep(step: CaseStep, latencyMs: number, hedgeLatencyMs?: number): ScriptStep {
  const reply = replyInput(step);
  return {
    ...(step.calls
      ? {
          calls: step.calls.map((c) => ({
            tool: c.tool,
            ...(c.arguments !== undefined ? { arguments: c.arguments } : { input: c.input ?? {} }),
          })),
        }
      : {}),
    ...(reply !== undefined ? { reply } : {}),
    ...(step.text !== undefined ? { text: step.text } : {}),
    ...(step.error ? { error: step.error } : {}),
    latencyMs,
    ...(hedgeLatencyMs !== undefined ? { hedgeLatencyMs } : {}),
  };
}

function stepOutputTokens(step: CaseStep): number {
  if (step.error) return 1;
  const calls = (step.calls ?? []).map((c) => ({
    tool: c.tool,
    argumentsText: c.arguments ?? JSON.stringify(c.input ?? {}),
  }));
  const reply = replyInput(step);
  if (reply !== undefined) calls.push({ tool: 'reply', argumentsText: JSON.stringify(reply) });
  return outputTokensOf(calls, step.text ?? '');
}

/**
 * Latencies for a turn's steps: fixed ones as written, the others drawn (deterministically). A
 * drawn step also gets `hedgeMs`, the latency of its hedge should one be sent: an independent
 * draw from the same model (real slowness is partly correlated — a provider-wide slow spell slows
 * both calls — so the gain measured here is an upper bound). A fixed step's hedge takes as long.
 */
export function turnLatencies(
  turn: Pick<CaseTurn, 'model'>,
  turnIndex: number,
  opts: Pick<RunCaseOptions, 'preset' | 'seed' | 'repeat' | 'drawKey'>,
) {
  return turn.model.map((step, i) => {
    if (step.latencyMs !== undefined) return { ms: step.latencyMs, hedgeMs: step.latencyMs, drawn: false };
    const rand = mulberry32(seedOf(opts.seed, opts.drawKey, opts.repeat, turnIndex, i));
    const hedgeRand = mulberry32(seedOf(opts.seed, opts.drawKey, opts.repeat, turnIndex, i, 'hedge'));
    const tokens = [promptTokensOf(i, turnIndex), stepOutputTokens(step)] as const;
    return {
      ms: drawStep(opts.preset, rand, ...tokens).totalMs,
      hedgeMs: drawStep(opts.preset, hedgeRand, ...tokens).totalMs,
      drawn: true,
    };
  });
}

/**
 * What a step takes with hedging (src/models/hedged-model.ts): the primary, or the hedge sent at
 * `hedgeAtMs` if that answers first. A step scripted to fail fails both calls, and once the hedge
 * runs a failure waits for the other call: the step ends with the later of the two.
 */
export function effectiveMs(latency: { ms: number; hedgeMs: number }, hedgeAtMs: number | null, fails = false): number {
  if (hedgeAtMs === null || latency.ms <= hedgeAtMs) return latency.ms;
  const hedgeDone = hedgeAtMs + latency.hedgeMs;
  return fails ? Math.max(latency.ms, hedgeDone) : Math.min(latency.ms, hedgeDone);
}

/**
 * Each step's effective latency, in order: a step's hedge goes out when the runtime would send it
 * (src/models/hedge-timing.ts), from what is left of `budgetMs` once the steps before it have run.
 * `hedging` null: the tenant does not hedge.
 */
export function effectiveLatencies(
  latencies: readonly { ms: number; hedgeMs: number }[],
  hedging: HedgeTiming | null,
  fails: readonly boolean[],
  budgetMs: number,
): number[] {
  let elapsed = 0;
  return latencies.map((l, i) => {
    const at = hedging ? hedgeDelayMs(hedging, budgetMs - elapsed) : null;
    const ms = effectiveMs(l, at, fails[i] ?? false);
    elapsed += ms;
    return ms;
  });
}

/** Which path a turn's drawn latencies put it on, against the tenant's model budget. */
export function deadlinePath(
  latencies: { ms: number; drawn: boolean }[],
  stepsRun: number,
  deadlineMs: number,
): { path: DeadlinePath; budgetMs: number } {
  // `ms`: the step's effective latency (with a hedge's, when the tenant hedges).
  const budgetMs = responseBudgetMs(deadlineMs);
  const run = latencies.slice(0, stepsRun);
  if (!run.some((l) => l.drawn)) return { path: 'normal', budgetMs };
  const total = run.reduce((a, l) => a + l.ms, 0);
  if (total >= budgetMs + 100) return { path: 'deadline', budgetMs };
  if (total > budgetMs - 400) return { path: 'either', budgetMs };
  return { path: 'normal', budgetMs };
}

/** What a turn that hit the deadline must look like: deferred, or the fallback with nothing performed. */
export function deadlineExpectation(config: TenantConfig, exp: Expectation): Expectation {
  const keep: ExpectationCore = {};
  if (exp.status !== undefined) keep.status = exp.status;
  if (exp.distinctTurns !== undefined) keep.distinctTurns = exp.distinctTurns;
  if (exp.duplicates !== undefined) keep.duplicates = exp.duplicates;
  return {
    ...keep,
    anyOf: [
      { deferred: true },
      { deferred: false, decision: 'error', committed: [], performed: [], replyContains: [config.fallbackReply] },
    ],
  };
}
