import type { HistoryEntry } from '../../core/history-entry.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { runGuardrails, type PipelineResult } from '../../guardrails/pipeline.js';
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
 */
export async function judgeTurn(guardrails: readonly Guardrail[], input: JudgeInput): Promise<{ judged: PipelineResult | null; ms: number }> {
  const started = performance.now();
  const { loop } = input;
  if (input.inHandoffUntil || loop.kind === 'error') return { judged: null, ms: 0 };
  const judged = await runGuardrails(
    guardrails,
    {
      inbound: input.inbound,
      rawReply: loop.kind === 'reply' ? loop.reply : lastReplyInput(loop),
      reply: loop.kind === 'reply' ? loop.reply : null,
      staged: input.staged,
      steps: loop.steps,
      config: input.config,
      instructions: input.instructions,
      history: input.history,
    },
    input.config.thresholds.guardrailTimeoutMs,
  );
  return { judged, ms: Math.round(performance.now() - started) };
}

/** When the loop ended without a valid reply, the last reply call's raw input (for the schema verdict). */
function lastReplyInput(loop: LoopOutcome): unknown {
  for (const step of [...loop.steps].reverse()) {
    const call = [...step.toolCalls].reverse().find((c) => c.toolName === 'reply');
    if (call) return call.input;
  }
  return null;
}
