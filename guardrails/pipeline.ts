import type { Verdict } from '../core/verdict.js';
import type { Guardrail, GuardrailInput, GuardrailResult } from './guardrail.js';

export interface PipelineResult {
  outcome: 'pass' | 'veto' | 'escalate';
  verdicts: Verdict[];
  /** The reason of the verdict that decided (first escalate, else first veto). */
  reason: string;
}

class GuardrailTimeout extends Error {}

/** Runs one guardrail; a throw or a timeout is an escalate (fail closed), never a pass. */
async function runOne(guardrail: Guardrail, input: GuardrailInput, timeoutMs: number): Promise<Verdict> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new GuardrailTimeout());
    }, timeoutMs);
  });
  let result: GuardrailResult;
  try {
    result = await Promise.race([Promise.resolve().then(() => guardrail.check(input, controller.signal)), timeout]);
  } catch (err) {
    result =
      err instanceof GuardrailTimeout
        ? { outcome: 'escalate', reason: `guardrail did not finish within ${timeoutMs} ms (fail closed)` }
        : {
            outcome: 'escalate',
            reason: `guardrail failed: ${err instanceof Error ? err.message : String(err)} (fail closed)`,
          };
  } finally {
    clearTimeout(timer);
  }
  if (!result || !['pass', 'veto', 'escalate'].includes(result.outcome)) {
    result = { outcome: 'escalate', reason: 'guardrail returned no valid verdict (fail closed)' };
  }
  return {
    guardrail: guardrail.name,
    outcome: result.outcome,
    reason: result.reason,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * Judges the finished turn with every guardrail, concurrently. Any escalate wins, then any veto;
 * only a unanimous pass passes.
 */
export async function runGuardrails(
  guardrails: readonly Guardrail[],
  input: GuardrailInput,
  timeoutMs: number,
): Promise<PipelineResult> {
  const verdicts = await Promise.all(guardrails.map((g) => runOne(g, input, timeoutMs)));
  const firstEscalate = verdicts.find((v) => v.outcome === 'escalate');
  if (firstEscalate)
    return { outcome: 'escalate', verdicts, reason: `${firstEscalate.guardrail}: ${firstEscalate.reason}` };
  const firstVeto = verdicts.find((v) => v.outcome === 'veto');
  if (firstVeto) return { outcome: 'veto', verdicts, reason: `${firstVeto.guardrail}: ${firstVeto.reason}` };
  return { outcome: 'pass', verdicts, reason: 'every guardrail passed' };
}
