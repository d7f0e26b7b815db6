import { Client } from '@upstash/qstash';
import type { DeliveryMessage } from './outbox-entry.js';

export interface OutboxPublisher {
  /** Asks QStash to deliver the turn's outbox entry; the turn id is the deduplication id. */
  publish(message: DeliveryMessage, opts?: { delaySeconds?: number }): Promise<void>;
}

export const DELIVERY_PATH = '/v1/outbox/deliver';

export function qstashPublisher(config: { qstashUrl: string; qstashToken: string; publicUrl: string }): OutboxPublisher {
  const client = new Client({ baseUrl: config.qstashUrl, token: config.qstashToken });
  return {
    async publish(message, opts) {
      await client.publishJSON({
        url: `${config.publicUrl.replace(/\/$/, '')}${DELIVERY_PATH}`,
        body: message,
        deduplicationId: `deliver-${message.tenantId}-${message.turnId}`,
        retries: 5,
        ...(opts?.delaySeconds ? { delay: opts.delaySeconds } : {}),
      });
    },
  };
}
