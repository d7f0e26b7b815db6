import { tenantWords } from '../../../core/tenant/tenant-words.js';
import type { InboundMessage } from '../../../core/inbound-message.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import type { TenantSecrets } from '../../../core/tenant/tenant-secrets.js';
import { channelApisFor } from '../../tenants/channel-apis.js';
import { rememberContactPage } from '../../tenants/page-tokens.js';
import type { TurnRecord } from '../../../core/turn-record.js';
import { enterReplyOrder } from '../../../outbox/reply-order.js';
import type { Services } from '../../http/app-context.js';
import { newTurnId } from '../../turn/handle-inbound.js';
import { replySequenceOf } from '../../turn/reply-sequence.js';
import { runTurn } from '../../turn/run-turn.js';
import { startTurn } from '../../turn/start-turn.js';
import { sendSystemReply } from './system-reply.js';
import { turnDeps } from '../../turn/turn-deps.js';
import { refusalOf, turnContext, type TenantStatus } from '../../turn/turn-engine.js';

export type MessengerTurnOutcome =
  | { kind: 'turn'; record: TurnRecord }
  /** Meta delivered this `mid` before: it joined the first delivery's turn. */
  | { kind: 'duplicate'; turnId: string }
  /** Over a rate limit: no turn; the tenant's polite reply goes out through the outbox (once per mid). */
  | { kind: 'rate-limited'; scope: string }
  /** Refused by the engine before anything was claimed (a suspended tenant): no turn. */
  | { kind: 'refused'; reason: 'suspended' };

/**
 * One Messenger message's turn, after the webhook has answered: the same start as ManyChat's
 * (rate limits and the `mid` claim in one round trip), a place in the contact's reply order, then
 * the shared turn — run as a deferred turn, so its reply goes out through the outbox (Send API)
 * before its actions. If the isolate dies first, the claim is open and the cron finishes it.
 */
export async function runMessengerTurn(
  services: Services,
  config: TenantConfig,
  secrets: TenantSecrets,
  inbound: InboundMessage,
  status: TenantStatus,
): Promise<MessengerTurnOutcome> {
  const refused = refusalOf('messenger', status);
  if (refused) return { kind: 'refused', reason: refused };
  const session = services.redis();
  // Several pages: which one this contact wrote to, before anything can queue a reply to them
  // (beside the turn's one round trip, not after it; a storage failure keeps the message, as the claim's does).
  const [started] = await Promise.all([
    startTurn(session, config, inbound, newTurnId()),
    rememberContactPage(session, config, inbound.contactId, inbound.pageId),
  ]);
  if (started.limited) {
    await sendLimitedReply(
      services,
      config,
      inbound,
      started.digest,
      tenantWords(config, inbound.contact.language).say('rateLimited'),
    );
    return { kind: 'rate-limited', scope: started.limited.scope };
  }
  if (!started.claim?.claimed)
    return { kind: 'duplicate', turnId: started.claim && !started.claim.claimed ? started.claim.existingTurnId : '' };
  const sequence = await replySequenceOf(inbound);
  if (sequence) await enterReplyOrder(session, config.tenantId, inbound.contactId, sequence);
  // Off the reply's path: started, not awaited before the turn; awaited after it so the isolate keeps it alive.
  const shown = showWhileWaiting(services, config, secrets, inbound);
  // The webhook answered 200 at once: the reply cannot ride in it (the mode is deferred).
  const ctx = turnContext('messenger', {
    turnId: started.turnId,
    inbound,
    config,
    history: started.claim.history,
    roundTripsBeforeModel: session.roundTrips,
    inHandoffUntil: started.claim.inHandoffUntil,
  });
  const record = await runTurn(turnDeps(services, session, config, status), ctx).finally(() => shown);
  return { kind: 'turn', record };
}

/**
 * What the contact sees while the turn runs, as the tenant chose: `mark_seen` (their message was
 * read), then `typing_on`. Sent directly, not through the outbox: they perform nothing and are
 * worthless later, so they are never retried. Never on the reply's path: the turn does not wait
 * for them, and a refusal, a timeout or a throw is logged (no ids beyond the tenant's) and
 * swallowed. Meta clears typing when the reply arrives.
 */
async function showWhileWaiting(
  services: Services,
  config: TenantConfig,
  secrets: TenantSecrets,
  inbound: InboundMessage,
): Promise<void> {
  const psid = inbound.contactId;
  const actions = [
    ...(config.messenger.markSeen ? (['mark_seen'] as const) : []),
    ...(config.messenger.typingIndicator ? (['typing_on'] as const) : []),
  ];
  if (!actions.length) return;
  try {
    const messenger = channelApisFor(services, secrets, config, inbound.pageId).messenger;
    if (!messenger) return;
    for (const action of actions) {
      const result = await messenger.senderAction(psid, action);
      if (!result.ok) console.warn(`Messenger: tenant ${config.tenantId}: ${action} was not shown (${result.kind})`);
    }
  } catch (err) {
    console.warn(
      `Messenger: tenant ${config.tenantId}: sender actions failed (${err instanceof Error ? err.name : 'Error'})`,
    );
  }
}

/**
 * The rate limit's polite reply (no model call), as ManyChat's webhook answers it. Named by the
 * delivery's digest, so Meta's retries of the same `mid` queue it once.
 */
async function sendLimitedReply(
  services: Services,
  config: TenantConfig,
  inbound: InboundMessage,
  digest: string,
  text: string,
): Promise<void> {
  await sendSystemReply(services, config, inbound, {
    entryId: `rl_${digest.slice(0, 40)}`,
    tool: 'system:rate-limit',
    summary: 'tell the contact to slow down',
    text,
  });
}
