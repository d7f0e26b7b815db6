import { qstashClient } from './qstash-client.js';
import { INBOUND_RETRY_PATH, type InboundRetryJob } from '../core/inbound-retry-job.js';
import { deliveryKeyDigest } from '../core/storage/keys.js';
import { tenantLabel } from './publisher.js';

export interface InboundRetryPublisher {
  publishInboundRetry(job: InboundRetryJob): Promise<void>;
}

/** First try after this. */
export const INBOUND_RETRY_DELAY_SECONDS = 15;
export const INBOUND_RETRIES = 5;
/**
 * Then 30 s, 1, 2, 4 and 8 minutes between attempts (Upstash-Retry-Delay, ms over `retried`):
 * the last attempt comes ≈ 15.75 min after the message, so a 10-minute Redis outage is outlasted
 * within the five retries plans allow, and a message waits at most 8 minutes once Redis is back.
 * Explicit, so the schedule does not depend on the platform's default backoff.
 */
export const INBOUND_RETRY_DELAY = 'min(480000, 30000 * pow(2, retried))';

/**
 * Hands a delivery that arrived during a Redis outage to QStash. Deduplicated by the delivery's
 * own digest (tenant, contact, message key), so a ManyChat retry of the same message during the
 * outage is one job; the claim makes it one turn when it runs.
 */
export function qstashInboundRetries(config: {
  qstashUrl: string;
  qstashToken: string;
  publicUrl: string;
}): InboundRetryPublisher {
  const client = qstashClient(config);
  return {
    async publishInboundRetry(job) {
      const { tenantId, contactId, messageKey } = job.inbound;
      const delivery = `inbound-${tenantId}-${await deliveryKeyDigest(contactId, messageKey)}`;
      await client.publishJSON({
        url: `${config.publicUrl.replace(/\/$/, '')}${INBOUND_RETRY_PATH}`,
        body: job,
        // An unauthenticated keep is deduplicated with its own secret's hash too: a forged copy of a
        // contact's message (wrong secret) must not take the real one's place in QStash's dedup window.
        deduplicationId: job.unverified ? `${delivery}-u${job.unverified.secretHmac.slice(0, 32)}` : delivery,
        label: tenantLabel(tenantId),
        delay: INBOUND_RETRY_DELAY_SECONDS,
        retries: INBOUND_RETRIES,
        retryDelay: INBOUND_RETRY_DELAY,
      });
    },
  };
}
