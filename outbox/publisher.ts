import { qstashClient } from './qstash-client.js';
import type { DeliveryMessage } from '../core/outbox-entry.js';

export interface OutboxPublisher {
  /**
   * Asks QStash to deliver the turn's outbox entry. The turn id is the deduplication id, so a
   * retried publish is one message; a later publish on purpose (the sweeper, a re-drive) passes
   * an `attempt` label so QStash's deduplication window cannot swallow it. A second delivery of
   * an entry is harmless: the lease and the ledger make it perform nothing twice.
   */
  publish(message: DeliveryMessage, opts?: { delaySeconds?: number; attempt?: string }): Promise<void>;
}

export const DELIVERY_PATH = '/v1/outbox/deliver';

/** The QStash label every message of a tenant carries (deliveries and finish-turn jobs). */
export function tenantLabel(tenantId: string): string {
  return `tenant-${tenantId}`;
}

export function qstashPublisher(config: {
  qstashUrl: string;
  qstashToken: string;
  publicUrl: string;
}): OutboxPublisher {
  const client = qstashClient(config);
  return {
    async publish(message, opts) {
      await client.publishJSON({
        url: `${config.publicUrl.replace(/\/$/, '')}${DELIVERY_PATH}`,
        body: message,
        deduplicationId: `deliver-${message.tenantId}-${message.turnId}${opts?.attempt ? `-${opts.attempt}` : ''}`,
        // The tenant's label narrows QStash look-ups (its DLQ view) to its own messages.
        label: tenantLabel(message.tenantId),
        retries: 5,
        ...(opts?.delaySeconds ? { delay: opts.delaySeconds } : {}),
      });
    },
  };
}
