import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
} from '@ai-sdk/provider';
import type { LanguageModel } from 'ai';
import type { ModelStepRecord, TurnRecord } from '../../core/turn-record.js';
import { modelRequestDigest } from '../models/request-digest.js';

/** How one model call of a replay was answered. */
export interface ReplayCall {
  step: number;
  /** `recorded`: the request was the recorded one byte for byte, so the recorded response answered. */
  source: 'recorded' | 'model' | 'needs-model';
  /** Why the recorded response could not answer (absent when it did). */
  why?: string;
  /** The call's time: the recorded step's for a recorded answer (what the hosted model took), else measured. */
  ms: number;
  /** The tool list of the request as the provider got it (JSON, in order). */
  toolList: string;
}

export interface ReplayModelOptions {
  /** The candidate config's model id: part of the request bytes (another model is another request). */
  modelId: string;
  /** Answers a call whose request is not the recorded one; absent, such a turn needs a model. */
  fallback?: LanguageModel;
  /** false: the fallback answers every call, even an unchanged one (a rebuild through the real provider). */
  useRecorded?: boolean;
  /**
   * The candidate is not the config the turn ran with (the record's config digest differs): said
   * with a changed request, so a tenant whose config moved on since sees why old turns need a model.
   */
  configChanged?: boolean;
}

/** Thrown into the loop when neither the recording nor a model may answer: the turn is reported as needing a model. */
export class NeedsModelError extends Error {}

/** Step n's recorded response, rebuilt as the provider's answer (the tool calls, the reply among them). */
function recordedAnswer(step: ModelStepRecord): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = step.toolCalls.map((c) => ({
    type: 'tool-call',
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    input: JSON.stringify(c.input ?? {}),
  }));
  return {
    content,
    finishReason: { unified: 'tool-calls', raw: step.finishReason },
    usage: {
      inputTokens: { total: step.inputTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: step.outputTokens, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

/** Why call n's recorded response may not answer this request (null: it may). */
async function staleBecause(
  step: ModelStepRecord | undefined,
  n: number,
  options: ReplayModelOptions,
  call: LanguageModelV4CallOptions,
): Promise<string | null> {
  if (!step) return `the recording made no model call ${n}`;
  if (!step.requestDigest) return `the record keeps no request digest for model call ${n} (recorded before digests)`;
  if ((await modelRequestDigest(options.modelId, call)) !== step.requestDigest) {
    return `the request of model call ${n} differs from the recorded one${options.configChanged ? '; the config is not the one the turn ran with' : ''}`;
  }
  return null;
}

/**
 * The model a replayed turn talks to. Call n is answered with the hosted model's recorded
 * response only when the rebuilt request is byte-identical to the one call n sent when the turn
 * was recorded (the record's request digest); a changed request — a new persona, tool order,
 * model, or an earlier step that went otherwise — goes to the configured model, and with none
 * configured the call fails with NeedsModelError: a stale answer is never reused.
 */
export function replayModel(
  record: Pick<TurnRecord, 'steps' | 'modelId'>,
  options: ReplayModelOptions,
): LanguageModelV4 & { calls: ReplayCall[] } {
  const given = options.fallback;
  if (given !== undefined && (typeof given === 'string' || given.specificationVersion !== 'v4'))
    throw new Error('a replay needs a v4 model object, not a model id or an older model');
  const fallback: LanguageModelV4 | undefined = given;
  const calls: ReplayCall[] = [];
  return {
    specificationVersion: 'v4' as const,
    provider: 'replay',
    modelId: `recorded:${record.modelId}`,
    supportedUrls: {},
    calls,
    doStream: () => Promise.reject(new Error('a replayed model does not stream')),
    doGenerate: async (call): Promise<LanguageModelV4GenerateResult> => {
      const n = calls.length + 1;
      const step = record.steps[n - 1];
      const toolList = JSON.stringify(call.tools ?? []);
      const why =
        options.useRecorded === false
          ? 'the configured model answers every call'
          : await staleBecause(step, n, options, call);
      if (why === null && step) {
        calls.push({ step: n, source: 'recorded', ms: step.ms, toolList });
        return recordedAnswer(step);
      }
      if (!fallback) {
        calls.push({ step: n, source: 'needs-model', why: why ?? undefined, ms: 0, toolList });
        throw new NeedsModelError(`needs a model: ${why}`);
      }
      const entry: ReplayCall = { step: n, source: 'model', ...(why ? { why } : {}), ms: 0, toolList };
      calls.push(entry);
      const started = performance.now();
      try {
        return await fallback.doGenerate(call);
      } finally {
        entry.ms = Math.round(performance.now() - started);
      }
    },
  };
}
