import { z } from 'zod';
import { KeyIdSchema } from '../../../core/storage/keys.js';
import { ManyChatChannelSchema } from '../../../core/manychat-channels.js';

/**
 * What ManyChat's External Request / Dynamic Block sends. The tenant's request template posts
 * the `Full Contact Data` variable either as the whole body or under `contact`, plus optionally
 * `channel` (the ManyChat channel the flow runs on), `text` (older templates' {{last_input_text}};
 * the contact's own `last_input_text` is read otherwise), `attachments` and `message_key`.
 */
export const ManyChatContactSchema = z
  .object({
    id: z
      .union([z.string().regex(/^\d{1,30}$/, 'must be a numeric id'), z.number().int().nonnegative()])
      .transform(String),
    page_id: z.union([z.string(), z.number()]).transform(String).optional(),
    name: z.string().max(200).nullish(),
    first_name: z.string().max(200).nullish(),
    last_name: z.string().max(200).nullish(),
    last_input_text: z.string().max(4000).nullish(),
    last_interaction: z.string().max(64).nullish(),
    /** Instagram (ManyChat's Subscriber schema): the contact's Instagram id, handle and last message time. */
    ig_id: z.union([z.string().max(64), z.number()]).nullish(),
    ig_username: z.string().max(200).nullish(),
    ig_last_interaction: z.string().max(64).nullish(),
    /** WhatsApp: the contact's number. */
    whatsapp_phone: z.string().max(64).nullish(),
    /** Facebook's locale (`es_ES`) and ManyChat's language name (`Spanish`): the runtime's words follow them. */
    locale: z.string().max(40).nullish(),
    language: z.string().max(40).nullish(),
    custom_fields: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();

/** A button we issued (signed; see src/approvals/callback-signature.ts). */
export const ManyChatCallbackSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('confirm'),
    pendingId: KeyIdSchema,
    answer: z.enum(['yes', 'no']),
    nonce: z.string().min(1).max(200),
  }),
  z.object({ kind: z.literal('suggest'), text: z.string().min(1).max(100), nonce: z.string().min(1).max(200) }),
]);

const Wrapped = z.object({
  contact: ManyChatContactSchema,
  /** The channel the flow runs on; a button press carries the channel its buttons were rendered for. */
  channel: ManyChatChannelSchema.optional(),
  /** What the contact attached, if the template passes it (e.g. an image URL field): described to the model, never fetched. */
  attachments: z
    .array(z.object({ type: z.string().min(1).max(40), url: z.string().max(2000).optional() }))
    .max(20)
    .optional(),
  text: z.string().max(4000).optional(),
  message_key: z.string().min(1).max(200).optional(),
  callback: ManyChatCallbackSchema.optional(),
  /** HMAC over the callback claim (src/approvals/callback-signature.ts). */
  sig: z.string().max(200).optional(),
});

export type ManyChatWebhook = z.infer<typeof Wrapped>;

/** Accepts the wrapped form or the bare contact object; says which field is wrong otherwise. */
export function parseManyChatWebhook(
  body: unknown,
): { ok: true; value: ManyChatWebhook } | { ok: false; problems: string[] } {
  const looksWrapped = typeof body === 'object' && body !== null && 'contact' in body;
  const parsed = looksWrapped ? Wrapped.safeParse(body) : ManyChatContactSchema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map(
        (i) => `${(looksWrapped ? i.path : ['contact', ...i.path]).join('.') || '(body)'}: ${i.message}`,
      ),
    };
  }
  return {
    ok: true,
    value: looksWrapped ? (parsed.data as ManyChatWebhook) : { contact: parsed.data as ManyChatWebhook['contact'] },
  };
}
