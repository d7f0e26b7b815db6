import type { HistoryEntry } from '../../core/history-entry.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { runGuardrails, type PipelineResult } from '../../guardrails/pipeline.js';
import { writesNeedingTap } from '../../guardrails/request-provenance.js';
import type { LoopOutcome } from './model-loop.js';

export interface JudgeInput {
  inbound: InboundMessage;
  config: TenantConfig;
  history: HistoryEntry[];
  instructions: string;
  loop: LoopOutcome;
  staged: StagedAction[];
  inHandoffUntil: string | null;
}

/**
 * The judge stage: every guardrail looks at the finished turn. Not judged (null) when there is
 * nothing to judge: the contact is with a human (no model call) or the loop failed (the
 * decision falls back without looking at anything the model produced).
 *
 * First, an ungated write the runtime cannot tie to the contact's words (and that nothing the
 * model read names) is given the contact's tap: its gate becomes `confirm`, so it waits for the
 * signed Yes/No instead of escalating or committing silently. The guardrails judge the turn as it
 * will be decided (a reply claiming that write happened is then vetoed), and `staged` returns it.
 */
export async function judgeTurn(
  guardrails: readonly Guardrail[],
  input: JudgeInput,
): Promise<{ judged: PipelineResult | null; ms: number; staged: StagedAction[]; notes: string[] }> {
  const started = performance.now();
  const { loop } = input;
  if (input.inHandoffUntil || loop.kind === 'error') return { judged: null, ms: 0, staged: input.staged, notes: [] };
  const taps = writesNeedingTap({
    inbound: input.inbound,
    steps: loop.steps,
    history: input.history,
    config: input.config,
    staged: input.staged,
  });
  const tapped = new Set(taps.map((t) => t.actionId));
  const staged = input.staged.map((a) => (tapped.has(a.id) ? { ...a, gate: 'confirm' as const } : a));
  const judged = await runGuardrails(
    guardrails,
    {
      inbound: input.inbound,
      rawReply: loop.kind === 'reply' ? loop.reply : lastReplyInput(loop),
      reply: loop.kind === 'reply' ? loop.reply : null,
      staged,
      steps: loop.steps,
      config: input.config,
      instructions: input.instructions,
      history: input.history,
    },
    input.config.thresholds.guardrailTimeoutMs,
  );
  return {
    judged,
    ms: Math.round(performance.now() - started),
    staged,
    notes: taps.map((t) => `${t.actionId}: ${t.why}`),
  };
}

/** When the loop ended without a valid reply, the last reply call's raw input (for the schema verdict). */
function lastReplyInput(loop: LoopOutcome): unknown {
  for (const step of [...loop.steps].reverse()) {
    const call = [...step.toolCalls].reverse().find((c) => c.toolName === 'reply');
    if (call) return call.input;
  }
  return null;
}
