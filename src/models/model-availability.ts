import { isDeployed, type AppEnv } from '../env.js';

export type ModelAvailability =
  | { kind: 'openai' }
  /** No key: the offline rule model answers — locally, or deployed with ALLOW_OFFLINE_MODEL=true (degraded). */
  | { kind: 'offline-rule-model'; degraded: boolean }
  /** Deployed, no key, no explicit permission: contacts are not answered. */
  | { kind: 'none'; problem: string };

export const NO_MODEL_PROBLEM =
  'no OPENAI_API_KEY on this deployed Worker: contacts are not answered (set OPENAI_API_KEY, or ALLOW_OFFLINE_MODEL=true to answer with the offline rule model)';

/**
 * Which model answers contacts. A deployed Worker never falls back to the offline rule model
 * silently: without a key it refuses, unless ALLOW_OFFLINE_MODEL says so explicitly.
 */
export function modelAvailability(
  env: Pick<AppEnv, 'OPENAI_API_KEY' | 'ENVIRONMENT' | 'ALLOW_OFFLINE_MODEL'>,
): ModelAvailability {
  if (env.OPENAI_API_KEY) return { kind: 'openai' };
  if (!isDeployed(env)) return { kind: 'offline-rule-model', degraded: false };
  if (env.ALLOW_OFFLINE_MODEL === 'true') return { kind: 'offline-rule-model', degraded: true };
  return { kind: 'none', problem: NO_MODEL_PROBLEM };
}

/** Thrown where a turn would need a model and none may answer; the app answers 503 naming the fix. */
export class ModelUnavailableError extends Error {
  constructor() {
    super(NO_MODEL_PROBLEM);
    this.name = 'ModelUnavailableError';
  }
}
