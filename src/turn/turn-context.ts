import type { LanguageModel } from 'ai';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';

/** What every stage of a turn may use. Built by the route; tests replace the model and clients. */
export interface TurnDeps {
  session: RedisSession;
  model: LanguageModel;
  modelId: string;
  guardrails: readonly Guardrail[];
  publisher: OutboxPublisher;
  /** Signs pinned confirmation/approval terms and button payloads (SESSION_SECRET). */
  pinSecret: string;
  /**
   * Runs work past the response (ExecutionContext.waitUntil). Given, the QStash publish after the
   * commit does not hold the webhook's reply (a slow QStash must not cost ManyChat's 10 s); a
   * failed publish is caught by the sweeper either way.
   */
  background?: (work: Promise<unknown>) => void;
  /** Where the contact's buttons post back (the tenant's ManyChat webhook URL). */
  callbackUrl?: string;
  /** The Worker's PUBLIC_URL (approval notifications link to the tenant API). */
  publicUrl?: string;
  now?: () => Date;
}

/**
 * Shared between the webhook (which may stop waiting at the deadline) and the turn (which may
 * be committing). JavaScript runs one of them at a time, so whichever flips its flag first
 * decides: a turn that started committing is awaited; a deferred one commits its reply through
 * the outbox.
 */
export interface DeferralState {
  deferred: boolean;
  committing: boolean;
}

export interface TurnContext {
  turnId: string;
  inbound: InboundMessage;
  config: TenantConfig;
  history: HistoryEntry[];
  /** The model is aborted so the turn can still finish by this time (performance.now() ms). */
  deadlineAt: number;
  startedAt: number;
  /** Round trips the ingress already spent (auth + claim). */
  roundTripsBeforeModel: number;
  inHandoffUntil: string | null;
  deferral: DeferralState;
}
