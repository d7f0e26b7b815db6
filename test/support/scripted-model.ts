import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { HEDGE_HEADER } from '../../src/models/hedged-model.js';

/** One scripted model call: tool calls (the reply is a call of `reply`), a delay, or an error. */
export interface ScriptedStep {
  calls?: { tool: string; input: unknown }[];
  /** Shorthand for a final `reply` call. */
  reply?: unknown;
  delayMs?: number;
  /** A hedge of this call (the same request sent again, see src/models/hedged-model.ts) waits this long instead of `delayMs`. */
  hedgeDelayMs?: number;
  /** A hedge of this call answers these instead (to show which of a pair won). */
  hedgeCalls?: { tool: string; input: unknown }[];
  error?: string;
}

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

export function reply(
  text: string,
  extra: Partial<{ escalate: boolean; confidence: number; reason: string; quickReplies: string[] }> = {},
) {
  return { text, escalate: false, confidence: 0.9, reason: 'scripted', ...extra };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error('aborted'));
    });
  });
}

/**
 * A MockLanguageModelV4 that plays `steps` in order, one per model call. A call beyond the script
 * would be a third step: it is answered (with more tool calls) so a test can prove the product,
 * not the script, stops the loop.
 */
export function scriptedModel(steps: ScriptedStep[]) {
  let index = 0;
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-model',
    doGenerate: async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
      // A hedge is the same request again: it replays the step in flight (as a hosted model would
      // answer the same prompt), not the next one.
      const hedge = options.headers?.[HEDGE_HEADER] === '1';
      const n = hedge ? index - 1 : index++;
      const step = steps[n] ?? { calls: [{ tool: 'lookup_contact', input: {} }] };
      const delay = hedge ? (step.hedgeDelayMs ?? step.delayMs) : step.delayMs;
      if (delay) await sleep(delay, options.abortSignal);
      if (step.error) throw new Error(step.error);
      const calls = [
        ...((hedge ? step.hedgeCalls : undefined) ?? step.calls ?? []),
        ...(step.reply !== undefined ? [{ tool: 'reply', input: step.reply }] : []),
      ];
      const content: LanguageModelV4Content[] = calls.map((c, i) => ({
        type: 'tool-call',
        toolCallId: `call_${n}${hedge ? 'h' : ''}_${i}`,
        toolName: c.tool,
        input: JSON.stringify(c.input),
      }));
      return { content, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
    },
  });
  return model;
}
