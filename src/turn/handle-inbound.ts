import type { InboundMessage } from '../domain/inbound-message.js';
import type { OutgoingReply, TurnRecord } from '../domain/turn-record.js';
import type { TenantConfig } from '../tenants/tenant-config.js';
import { awaitTurnRecord, claimDelivery } from './claim.js';
import { runTurn, type TurnDeps } from './run-turn.js';

export type InboundOutcome =
  | { kind: 'turn'; record: TurnRecord }
  /** A duplicate delivery: the first turn's reply, or null if it is not finished by the deadline. */
  | { kind: 'duplicate'; turnId: string; reply: OutgoingReply | null };

/** Claim the delivery, then either run the turn or attach to the one already running. */
export async function handleInbound(deps: TurnDeps, inbound: InboundMessage, config: TenantConfig, startedAt: number, newTurnId: () => string): Promise<InboundOutcome> {
  const turnId = newTurnId();
  const deadlineAt = startedAt + config.deadlineMs;
  const claim = await claimDelivery(deps.session, config.tenantId, inbound.messageKey, inbound.contactId, turnId);
  if (!claim.claimed) {
    const record = await awaitTurnRecord(deps.session, config.tenantId, claim.existingTurnId, Date.now() + (deadlineAt - performance.now()), (raw) =>
      raw && typeof raw === 'object' && 'reply' in raw ? (raw as TurnRecord) : null,
    );
    return { kind: 'duplicate', turnId: claim.existingTurnId, reply: record?.reply ?? null };
  }
  const record = await runTurn(deps, {
    turnId,
    inbound,
    config,
    history: claim.history,
    deadlineAt,
    startedAt,
    roundTripsBeforeModel: deps.session.roundTrips,
    inHandoffUntil: claim.inHandoffUntil,
  });
  return { kind: 'turn', record };
}

export function newTurnId(): string {
  return `turn_${crypto.randomUUID().replace(/-/g, '')}`;
}
