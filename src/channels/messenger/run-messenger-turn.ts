import { tenantWords } from '../../../core/tenant/tenant-words.js';
import type { InboundMessage } from '../../../core/inbound-message.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { TenantSecrets } from '../../../core/tenant/tenant-secrets.js';
import { channelApisFor } from '../../tenants/channel-apis.js';
import type { TurnRecord } from '../../../core/turn-record.js';
import { enterReplyOrder } from '../../../outbox/reply-order.js';
import type { Services } from '../../http/app-context.js';
import { newTurnId } from '../../turn/handle-inbound.js';
import { replySequenceOf } from '../../turn/reply-sequence.js';
import { runTurn } from '../../turn/run-turn.js';
import { startTurn } from '../../turn/start-turn.js';
import { sendSystemReply } from './system-reply.js';
import { turnDeps } from '../../turn/turn-deps.js';

export type MessengerTurnOutcome =
  | { kind: 'turn'; record: TurnRecord }
  /** Meta delivered this `mid` before: it joined the first delivery's turn. */
  | { kind: 'duplicate'; turnId: string }
  /** Over a rate limit: no turn; the tenant's polite reply goes out through the outbox (once per mid). */
  | { kind: 'rate-limited'; scope: string };

/**
 * One Messenger message's turn, after the webhook has answered: the same start as ManyChat's
 * (rate limits and the `mid` claim in one round trip), a place in the contact's reply order, then
 * the shared turn — run as a deferred turn, so its reply goes out through the outbox (Send API)
 * before its actions. If the isolate dies first, the claim is open and the cron finishes it.
 */
export async function runMessengerTurn(services: Services, config: TenantConfig, secrets: TenantSecrets, inbound: InboundMessage): Promise<MessengerTurnOutcome> {
  const session = services.redis();
  const started = await startTurn(session, config, inbound, newTurnId());
  if (started.limited) {
    await sendLimitedReply(services, config, inbound, started.digest, tenantWords(config, inbound.contact.language).say('rateLimited'));
    return { kind: 'rate-limited', scope: started.limited.scope };
  }
  if (!started.claim?.claimed) return { kind: 'duplicate', turnId: started.claim && !started.claim.claimed ? started.claim.existingTurnId : '' };
  const sequence = await replySequenceOf(inbound);
  if (sequence) await enterReplyOrder(session, config.tenantId, inbound.contactId, sequence);
  if (config.messenger.typingIndicator) await showTyping(services, secrets, inbound.contactId);
  const startedAt = performance.now();
  const record = await runTurn(turnDeps(services, session, config), {
    turnId: started.turnId,
    inbound,
    config,
    history: started.claim.history,
    deadlineAt: startedAt + config.asyncDeadlineMs,
    startedAt,
    roundTripsBeforeModel: session.roundTrips,
    inHandoffUntil: started.claim.inHandoffUntil,
    // The webhook answered 200 at once: the reply cannot ride in it.
    deferral: { deferred: true, committing: false },
  });
  return { kind: 'turn', record };
}

/**
 * `sender_action: typing_on` while the turn runs (the tenant's choice). Sent directly, not through
 * the outbox: it performs nothing and is worthless later, so it is never retried; a failure is
 * logged (no ids beyond the tenant's) and the turn goes on. Meta clears it when the reply arrives.
 */
async function showTyping(services: Services, secrets: TenantSecrets, psid: string): Promise<void> {
  const messenger = channelApisFor(services, secrets).messenger;
  if (!messenger) return;
  const result = await messenger.senderAction(psid, 'typing_on');
  if (!result.ok) console.warn(`Messenger: typing_on was not shown (${result.kind})`);
}

/**
 * The rate limit's polite reply (no model call), as ManyChat's webhook answers it. Named by the
 * delivery's digest, so Meta's retries of the same `mid` queue it once.
 */
async function sendLimitedReply(services: Services, config: TenantConfig, inbound: InboundMessage, digest: string, text: string): Promise<void> {
  await sendSystemReply(services, config, inbound, { entryId: `rl_${digest.slice(0, 40)}`, tool: 'system:rate-limit', summary: 'tell the contact to slow down', text });
}
