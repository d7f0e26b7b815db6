import { z } from 'zod';
import { InboundMessageSchema } from './inbound-message.js';

/**
 * An inbound delivery kept for later: a webhook that arrived while Redis did not answer, which
 * the Worker authenticated against the tenant it already held and handed to QStash instead of
 * losing it. QStash delivers it back (signed) until Redis answers; it is then claimed like any
 * delivery (so it runs once) and its reply goes out through the outbox.
 */
export const INBOUND_RETRY_PATH = '/v1/inbound/retry';

export const InboundRetryJobSchema = z.object({
  inbound: InboundMessageSchema,
  /**
   * Kept by an isolate that did not know the tenant (Redis down, nothing cached), so the request
   * could not be authenticated when it arrived: the keyed hash of the secret header it carried (the
   * same HMAC Redis stores, never the secret). The retry authenticates it against the tenant before
   * anything else and drops, with no turn, what does not match.
   */
  unverified: z
    .object({ secretHmac: z.string().regex(/^[0-9a-f]{64}$/) })
    .strict()
    .optional(),
});
export type InboundRetryJob = z.infer<typeof InboundRetryJobSchema>;
