import type { AppEnv } from '../env.js';
import type { SelectedModel } from '../models/select-model.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { SecretKeys, TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import type { TenantMeta } from '../tenants/tenant-meta.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import type { TurnJobPublisher } from '../../outbox/finish-turn-publisher.js';
import type { InboundRetryPublisher } from '../../outbox/inbound-retry-publisher.js';

/** What a request handler may use. Built from the environment; tests replace parts of it. */
export interface Services {
  env: AppEnv;
  redis(): RedisSession;
  publisher(): OutboxPublisher;
  /** Delayed jobs that finish deferred turns. */
  turnJobs(): TurnJobPublisher;
  /** Inbound deliveries kept through a Redis outage. */
  inboundRetries(): InboundRetryPublisher;
  model(config: TenantConfig): SelectedModel;
  guardrails: readonly Guardrail[];
  /** Outbound fetch for the ManyChat / Messenger APIs. */
  fetch: typeof fetch;
  /** The keys tenant secrets are sealed and hashed with (parsed once per isolate). */
  secretKeys(): Promise<SecretKeys>;
}

export interface LoadedTenant {
  config: TenantConfig;
  secrets: TenantSecrets;
  meta: TenantMeta;
}

export type Bindings = Record<string, unknown>;
/**
 * Every request: the services, the request's one Redis session (it counts round trips), and when
 * it arrived (performance.now(); a turn's deadline counts from it).
 */
export type AppVariables = { services: Services; session: RedisSession; startedAt: number };
export type AppContext = { Bindings: Bindings; Variables: AppVariables };
/** A route under `/:tenant` after the tenant was loaded (and, by then, authenticated). */
export type TenantContext = { Bindings: Bindings; Variables: AppVariables & { tenant: LoadedTenant } };
/** A QStash delivery after its signature verified: the exact bytes that were signed. */
export type SignedContext = { Bindings: Bindings; Variables: AppVariables & { signedBody: string } };
