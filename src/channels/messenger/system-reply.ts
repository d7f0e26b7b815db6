import { tenantWords } from '../../../core/tenant/tenant-words.js';
import type { InboundMessage } from '../../../core/inbound-message.js';
import { buildOutboxEntry } from '../../../core/outbox-entry.js';
import { deliveryKeyDigest } from '../../../core/storage/keys.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import { publishCommitted } from '../../../outbox/commit.js';
import { commitNoticeEntry } from '../../../outbox/commit-notice.js';
import type { Services } from '../../http/app-context.js';
import type { MessengerEvent } from './read-events.js';

/**
 * A reply the runtime writes, never the model (the rate limit's, a suspended tenant's), sent to a
 * Messenger contact the only way Messenger replies go: an outbox entry, written once under its
 * name — so Meta's retries of the same `mid`, which give the same name, queue it once.
 */
export async function sendSystemReply(
  services: Services,
  config: TenantConfig,
  inbound: InboundMessage,
  reply: { entryId: string; tool: string; summary: string; text: string },
): Promise<void> {
  const entry = buildOutboxEntry({
    entryId: reply.entryId,
    tenantId: config.tenantId,
    channel: 'messenger',
    contactId: inbound.contactId,
    actions: [
      {
        id: `${reply.entryId}.text`,
        tool: reply.tool,
        kind: 'send_content',
        args: { text: reply.text, lastInboundAt: inbound.contact.lastInteraction ?? inbound.receivedAt },
        effect: 'write',
        idempotent: false,
        gate: 'none',
        summary: reply.summary,
      },
    ],
    now: new Date(),
    retentionDays: config.retentionDays,
  });
  if (await commitNoticeEntry(services.redis(), entry)) await publishCommitted(services.publisher(), entry);
}

/**
 * A suspended tenant's contacts get its `suspendedReply` — the polite no-op ManyChat's webhook
 * answers with — once per message (named by the delivery's digest, so a retried `mid` is one
 * reply); no model call, no turn. Presses get nothing: they change nothing while suspended.
 */
export async function replySuspended(
  services: Services,
  config: TenantConfig,
  events: readonly MessengerEvent[],
): Promise<void> {
  for (const e of events) {
    if (e.kind !== 'message') continue;
    try {
      const digest = await deliveryKeyDigest(e.inbound.contactId, e.inbound.messageKey);
      await sendSystemReply(services, config, e.inbound, {
        entryId: `sus_${digest.slice(0, 40)}`,
        tool: 'system:suspended',
        summary: 'tell the contact the page is not answering now',
        text: tenantWords(config, e.inbound.contact.language).say('suspended'),
      });
    } catch (err) {
      console.error(
        `Messenger: tenant ${config.tenantId}: the suspended reply could not be queued (${err instanceof Error ? err.name : 'Error'})`,
      );
    }
  }
}
