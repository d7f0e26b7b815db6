import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModel } from 'ai';
import type { AppEnv } from '../env.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { createOfflineRuleModel, OFFLINE_RULE_MODEL_ID } from './offline-rule-model.js';
import { modelAvailability, ModelUnavailableError } from './model-availability.js';

export interface SelectedModel {
  model: LanguageModel;
  modelId: string;
  offline: boolean;
}

type OpenAIProvider = ReturnType<typeof createOpenAI>;
const providers = new Map<string, OpenAIProvider>();
/** One provider per isolate and key: creating it cost ~0.3 ms of a turn's CPU in workerd, and it keeps no per-request state. */
function providerFor(apiKey: string, baseURL: string | undefined): OpenAIProvider {
  const key = `${baseURL ?? ''} ${apiKey}`;
  let provider = providers.get(key);
  if (!provider) {
    if (providers.size >= 8) providers.clear();
    provider = createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) });
    providers.set(key, provider);
  }
  return provider;
}

/**
 * The hosted model when OPENAI_API_KEY is set (OPENAI_BASE_URL for any OpenAI-compatible
 * server; OPENAI_API_MODE=chat for servers that only speak Chat Completions), else the offline
 * rule model, named as such in every turn record — in a deployed Worker only when
 * ALLOW_OFFLINE_MODEL=true; otherwise it throws ModelUnavailableError (503).
 */
export function selectModel(env: AppEnv, config: TenantConfig): SelectedModel {
  if (modelAvailability(env).kind === 'none') throw new ModelUnavailableError();
  if (!env.OPENAI_API_KEY)
    return { model: createOfflineRuleModel(config), modelId: OFFLINE_RULE_MODEL_ID, offline: true };
  const openai = providerFor(env.OPENAI_API_KEY, env.OPENAI_BASE_URL);
  const model = env.OPENAI_API_MODE === 'chat' ? openai.chat(config.modelId) : openai.responses(config.modelId);
  return { model, modelId: config.modelId, offline: false };
}
