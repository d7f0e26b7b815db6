import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { LanguageModel } from 'ai';
import { sha256Hex } from '../../core/security/digest.js';

/**
 * The bytes of a model request, as the provider receives them: the call options the AI SDK hands
 * to `doGenerate` (prompt, tools in their order, tool choice, provider options, ...) with the
 * tenant's model id, in the SDK's own key order. The provider turns these into the wire body
 * deterministically (test/node/replay-request-bytes.test.ts compares the wire bytes), so equal
 * request bytes here mean an equal request on the wire. The abort signal and headers are left
 * out: they are not the body (a hedge's copy differs only in a header).
 */
export function modelRequestBytes(modelId: string, call: LanguageModelV4CallOptions): string {
  const { abortSignal: _signal, headers: _headers, ...body } = call;
  return JSON.stringify({ modelId, ...body });
}

/** SHA-256 of `modelRequestBytes`: what a turn record keeps of each step's request. */
export function modelRequestDigest(modelId: string, call: LanguageModelV4CallOptions): Promise<string> {
  return sha256Hex(modelRequestBytes(modelId, call));
}

/**
 * The model, with each call's request digest pushed to `digests` before the call goes out (call n
 * → digests[n-1]). A model given as an id string is left as is (no call options to see).
 */
export function digestingModel(model: LanguageModel, modelId: string, digests: string[]): LanguageModel {
  if (typeof model === 'string' || model.specificationVersion !== 'v4') return model;
  const inner: LanguageModelV4 = model;
  return {
    specificationVersion: 'v4',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doStream: (call) => inner.doStream(call),
    doGenerate: async (call) => {
      digests.push(await modelRequestDigest(modelId, call));
      return inner.doGenerate(call);
    },
  };
}
