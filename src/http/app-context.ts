import type { AppEnv } from '../env.js';
import type { SelectedModel } from '../models/select-model.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import type { TurnJobPublisher } from '../../outbox/finish-turn-publisher.js';

/** What a request handler may use. Built from the environment; tests replace parts of it. */
export interface Services {
  env: AppEnv;
  redis(): RedisSession;
  publisher(): OutboxPublisher;
  /** Delayed jobs that finish deferred turns. */
  turnJobs(): TurnJobPublisher;
  model(config: TenantConfig): SelectedModel;
  guardrails: readonly Guardrail[];
  /** Outbound fetch for the ManyChat / Messenger APIs. */
  fetch: typeof fetch;
}

export type AppContext = { Bindings: Record<string, unknown>; Variables: { services: Services } };
