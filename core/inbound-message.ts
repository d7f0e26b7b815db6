import { z } from 'zod';
import { ContactIdSchema } from './storage/keys.js';
import { TenantIdSchema } from './tenant/tenant-id.js';
import { ManyChatChannelSchema } from './manychat-channels.js';

/** One inbound delivery from any channel, after ingress validation. */
export const InboundMessageSchema = z.object({
  tenantId: TenantIdSchema,
  channel: z.enum(['manychat', 'messenger']),
  /**
   * ManyChat only: the channel the contact writes on (Facebook, Instagram, WhatsApp, Telegram), so
   * every reply is rendered in the shape that channel accepts. Absent: Facebook (older records).
   */
  surface: ManyChatChannelSchema.optional(),
  contactId: ContactIdSchema,
  /** Messenger: the page the contact wrote to (its entry's id); replies go with that page's token. */
  pageId: z
    .string()
    .regex(/^\d{1,30}$/)
    .optional(),
  /** Identifies the delivery: retries and concurrent duplicates share it. */
  messageKey: z.string(),
  text: z.string().optional(),
  /**
   * What the contact attached (Messenger: image, video, audio, file, …), described to the model
   * as type and URL; nothing ever fetches them.
   */
  attachments: z
    .array(z.object({ type: z.string().max(40), url: z.string().max(2000).optional() }))
    .max(20)
    .optional(),
  /**
   * A structured button press (e.g. a confirmation's Yes/No). Typed, never parsed from text, so
   * no string a contact writes can press a button.
   */
  callback: z
    .object({ kind: z.enum(['confirm']), pendingId: z.string(), answer: z.enum(['yes', 'no']), nonce: z.string() })
    .optional(),
  contact: z.object({
    name: z.string().optional(),
    fields: z.record(z.string(), z.unknown()),
    /** ISO time of the contact's last message to the page: drives the 24 h messaging window. */
    lastInteraction: z.string().optional(),
    /** The contact's language or locale as the channel gives it (ManyChat: `language`, `locale`): the runtime's words follow it. */
    language: z.string().max(40).optional(),
  }),
  receivedAt: z.string(),
});

export type InboundMessage = z.infer<typeof InboundMessageSchema>;

/**
 * ManyChat: where a later message to this contact goes — the channel and its own last-interaction
 * time as an ISO instant (the messaging window is judged from it at delivery). Messenger: nothing
 * (its sends carry their own window).
 */
export function manyChatTarget(inbound: InboundMessage): {
  surface?: NonNullable<InboundMessage['surface']>;
  lastInboundAt?: string;
} {
  if (inbound.channel !== 'manychat') return {};
  const at = inbound.contact.lastInteraction ? Date.parse(inbound.contact.lastInteraction) : NaN;
  return {
    ...(inbound.surface ? { surface: inbound.surface } : {}),
    ...(Number.isNaN(at) ? {} : { lastInboundAt: new Date(at).toISOString() }),
  };
}
