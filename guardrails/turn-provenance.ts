import type { StagedAction } from '../core/staged-action.js';
import type { ModelStepRecord } from '../core/turn-record.js';
import { isToolEnvelope } from '../core/tool-envelope.js';

const REPLY_TOOL = 'reply';

/**
 * Where things in a finished turn came from: which model step staged each action, and what
 * untrusted data each step's tool results brought in.
 */

/**
 * Step number that staged each action, read from the staging envelopes' `effects[].actionId`.
 * An action no step claims (a record the loop did not write) gets the last step: the most
 * conservative assumption, since later steps have seen more untrusted data.
 */
export function stagingStepOf(staged: readonly StagedAction[], steps: readonly ModelStepRecord[]): Map<string, number> {
  const byId = new Map<string, number>();
  for (const step of steps) {
    for (const result of step.toolResults) {
      if (result.status !== 'staged' || !isToolEnvelope(result.output)) continue;
      for (const effect of result.output.effects) if (!byId.has(effect.actionId)) byId.set(effect.actionId, step.step);
    }
  }
  const last = steps.reduce((max, s) => Math.max(max, s.step), 1);
  return new Map(staged.map((a) => [a.id, byId.get(a.id) ?? last]));
}

export interface UntrustedResult {
  step: number;
  toolName: string;
  text: string;
}

/**
 * Text of every tool result that is data rather than a staging outcome: read tools' output
 * (`ok`, plain content) and errors. Staging envelopes (`staged`, `denied`) are our own words.
 */
export function untrustedResults(steps: readonly ModelStepRecord[]): UntrustedResult[] {
  const out: UntrustedResult[] = [];
  for (const step of steps) {
    for (const result of step.toolResults) {
      // The reply tool's errors quote the model's own reply; they are not data from outside.
      if (result.status === 'staged' || result.status === 'denied' || result.toolName === REPLY_TOOL) continue;
      out.push({ step: step.step, toolName: result.toolName, text: unwrap(textOf(result.output)) });
    }
  }
  return out;
}

/**
 * Removes the `<untrusted-data>` wrappers our own tools put around data (markAsData neutralises
 * any such tag inside the data, so every remaining exact wrapper is ours); what is left is the
 * data as its author wrote it, and a delimiter the author tried shows as "[removed tag]".
 */
function unwrap(text: string): string {
  return text.replace(/<untrusted-data source="[^"<>]*">\n?/g, '').replace(/\n?<\/untrusted-data>/g, '');
}

function textOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (isToolEnvelope(output)) return output.content;
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return String(output);
  }
}
