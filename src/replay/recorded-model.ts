import type { LanguageModelV4, LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { TurnRecord } from '../../core/turn-record.js';

/**
 * A model that answers a replayed turn with what the hosted model answered when the turn was
 * recorded: call n gets step n's tool calls, rebuilt from the record (the reply is one of them).
 * A call past the recorded steps fails: a candidate config that needs a model call the recording
 * never made cannot be answered from the recording (replay with a given model instead).
 */
export function recordedModel(record: Pick<TurnRecord, 'steps' | 'modelId'>): LanguageModelV4 & { calls: number } {
  const model = {
    specificationVersion: 'v4' as const,
    provider: 'replay',
    modelId: `recorded:${record.modelId}`,
    supportedUrls: {},
    calls: 0,
    doStream: () => Promise.reject(new Error('a recorded model does not stream')),
    doGenerate: async (): Promise<LanguageModelV4GenerateResult> => {
      const step = record.steps[model.calls++];
      if (!step) throw new Error(`no recorded response for model call ${model.calls}`);
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
    },
  };
  return model;
}
