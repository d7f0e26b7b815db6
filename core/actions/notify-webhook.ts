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
  args: z
    .object({
      /** A plain endpoint (it authenticates our signature, so its address is not a secret). */
      url: z.url({ protocol: /^https?$/ }).optional(),
      /**
       * The tenant's sealed `notificationUrl` secret (a Slack incoming webhook: the URL is the
       * credential), opened only when the delivery posts; never copied into the entry.
       */
      sealed: z.literal(true).optional(),
      /** The JSON body, exactly as signed and sent. */
      body: z.string().min(2).max(16_384),
      /** Standard Webhooks `webhook-id`: the action's id. */
      webhookId: z.string().min(1).max(200),
      event: z.string().min(1).max(100),
    })
    .refine((a) => (a.url === undefined) !== (a.sealed === undefined), 'exactly one of url and sealed'),
  messagesContact: false,
  idempotent: true,
  resource: () => null,
  check: () => null,
  summary: (args) => `notify ${args.url ? new URL(args.url).host : 'the sealed notification URL'} (${args.event})`,
  undoKind: null,
  manyChatChannels: [],
  perform: {
    anyChannel: async (apis, _contactId, args) =>
      apis.webhook
        ? args.url
          ? apis.webhook.post(args.url, args.body, args.webhookId)
          : apis.webhook.postToSealedUrl(args.body, args.webhookId)
        : { ok: false, kind: 'permanent', status: 0, message: 'no webhook client for this delivery' },
  },
});
