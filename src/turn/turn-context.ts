import type { LanguageModel } from 'ai';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';

/** How a turn runs: the modes of the turn engine (turn-engine.ts `TURN_MODES` says what each one does). */
export type TurnModeName =
  'live' | 'messenger' | 'deferred-finish' | 'inbound-retry' | 'try-perform' | 'try-dry' | 'replay';

/** A tenant's status as the engine needs it (tenants/tenant-meta.ts). */
export type TenantStatus = 'active' | 'suspended';

/** What every stage of a turn may use. Built by the route; tests replace the model and clients. */
export interface TurnDeps {
  session: RedisSession;
  model: LanguageModel;
  modelId: string;
  guardrails: readonly Guardrail[];
  publisher: OutboxPublisher;
  /** Signs pinned confirmation/approval terms and button payloads (SESSION_SECRET). */
  pinSecret: SecretsInput;
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
  /**
   * The tenant's status when the turn was let in (turn-deps.ts reads it from the stored meta). A
   * suspended tenant's committing modes are refused by the engine (turn-engine.ts `refusalOf`).
   * Absent (unit tests of one stage): active.
   */
  tenantStatus?: TenantStatus;
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

/** Built only by `turnContext` (turn-engine.ts), the one factory. */
export interface TurnContext {
  /** How this turn runs (turn-engine.ts): what it commits, where its reply goes, who answers the model. */
  mode: TurnModeName;
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
