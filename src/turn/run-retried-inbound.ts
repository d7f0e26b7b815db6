import type { InboundMessage } from '../../core/inbound-message.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { claimDelivery } from './claim-delivery.js';
import { isClaimStranded } from '../../core/storage/claims.js';
import { finishTurn } from './finish-turn.js';
import { newTurnId } from './handle-inbound.js';
import { runTurn } from './run-turn.js';
import type { TurnDeps } from './turn-context.js';
import { finishDueAt, refusalOf, turnContext } from './turn-engine.js';

export type RetriedOutcome =
  | { kind: 'duplicate'; turnId: string }
  | { kind: 'finished'; record: TurnRecord }
  | { kind: 'refused'; reason: 'suspended' };

/**
 * A delivery kept through a Redis outage, back from QStash: claimed like any delivery (so a
 * second copy joins the first and nothing runs twice), then run as a deferred turn — the webhook
 * answered long ago, so the reply goes out through the outbox, before the actions.
 */
export async function runRetriedInbound(
  deps: TurnDeps,
  config: TenantConfig,
  inbound: InboundMessage,
): Promise<RetriedOutcome> {
  const refused = refusalOf('inbound-retry', deps.tenantStatus ?? 'active');
  if (refused) return { kind: 'refused', reason: refused };
  const turnId = newTurnId();
  const startedAt = performance.now();
  const claim = await claimDelivery(deps.session, config.tenantId, inbound.messageKey, inbound.contactId, turnId, {
    job: { turnId, inbound },
    dueAt: finishDueAt(config),
    retentionDays: config.retentionDays,
  });
  if (!claim.claimed) {
    const existing = claim.existingTurnId;
    // Redis slower than the client's timeout: the webhook's claim executed after the webhook gave
    // up and kept this delivery, so the claim's turn never ran. An open claim with no committed
    // turn is finished here, under its own id (nothing was performed before a commit, and the
    // commit is claimed by turn id, so a run still alive elsewhere and this one cannot both commit).
    if (existing && (await isClaimStranded(deps.session, config.tenantId, existing))) {
      const finished = await finishTurn(deps, config, { turnId: existing, inbound });
      if (finished.kind === 'finished') return finished;
    }
    return { kind: 'duplicate', turnId: existing };
  }
  const record = await runTurn(
    deps,
    turnContext('inbound-retry', {
      turnId,
      inbound,
      config,
      history: claim.history,
      startedAt,
      roundTripsBeforeModel: deps.session.roundTrips,
      inHandoffUntil: claim.inHandoffUntil,
    }),
  );
  return { kind: 'finished', record };
}
