import { z } from 'zod';
import { defineActionKind } from './action-kind.js';

/**
 * A signed POST to the tenant's own endpoint (a new approval waiting, for now): a system action,
 * never staged by the model, committed in the same write as the turn and delivered by the outbox
 * like any other action — retried when the endpoint refuses or does not answer, listed in the dead
 * letters when it refuses for good. Safe to repeat: every attempt carries the same `webhook-id`
 * (the action's id), which Standard Webhooks receivers use to drop repeats.
 */
export const notifyWebhook = defineActionKind({
  name: 'notify_webhook',
  args: z.object({
    url: z.url({ protocol: /^https?$/ }),
    /** The JSON body, exactly as signed and sent. */
    body: z.string().min(2).max(16_384),
    /** Standard Webhooks `webhook-id`: the action's id. */
    webhookId: z.string().min(1).max(200),
    event: z.string().min(1).max(100),
  }),
  messagesContact: false,
  idempotent: true,
  resource: () => null,
  check: () => null,
  summary: (args) => `notify ${new URL(args.url).host} (${args.event})`,
  undoKind: null,
  manyChatChannels: [],
  perform: {
    anyChannel: async (apis, _contactId, args) =>
      apis.webhook
        ? apis.webhook.post(args.url, args.body, args.webhookId)
        : { ok: false, kind: 'permanent', status: 0, message: 'no webhook client for this delivery' },
  },
});
