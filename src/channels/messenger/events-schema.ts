import { z } from 'zod';

/**
 * The Messenger Platform webhook body (docs/protocols.md, Messenger): `object: "page"`,
 * `entry[]`, each with `messaging[]` (or `standby[]` during a handover). Loose objects: Meta adds
 * fields; we read only these. Ids are PSIDs / page ids (digit strings).
 */
const id = z
  .union([z.string().regex(/^\d{1,30}$/, 'must be a numeric id'), z.number().int().nonnegative()])
  .transform(String);

const AttachmentSchema = z.looseObject({
  type: z.string().min(1).max(40),
  payload: z.looseObject({ url: z.string().max(2000).optional() }).nullish(),
});

const MessageSchema = z.looseObject({
  mid: z.string().min(1).max(400),
  text: z.string().max(4000).optional(),
  is_echo: z.boolean().optional(),
  quick_reply: z.looseObject({ payload: z.string().max(1000) }).optional(),
  attachments: z.array(AttachmentSchema).max(20).optional(),
});

const PostbackSchema = z.looseObject({
  mid: z.string().min(1).max(400).optional(),
  title: z.string().max(1000).optional(),
  payload: z.string().max(1000).optional(),
});

/** A Handover Protocol change (messaging_handovers): which app holds the thread now. */
const ThreadControlSchema = z.looseObject({
  new_owner_app_id: z
    .union([z.string().max(40), z.number()])
    .transform(String)
    .nullish(),
  previous_owner_app_id: z
    .union([z.string().max(40), z.number()])
    .transform(String)
    .nullish(),
  metadata: z.string().max(1000).nullish(),
});

export const MessagingItemSchema = z.looseObject({
  sender: z.looseObject({ id }),
  recipient: z.looseObject({ id }).optional(),
  /**
   * ms since the epoch: when the contact acted; orders one contact's messages. Optional: Meta's
   * delivery events carry none, and one such item must not make the whole batch a 400 (Meta would
   * retry it for a day and a half). Bounded to times a Date can hold.
   */
  timestamp: z.number().int().nonnegative().max(8_640_000_000_000_000).optional(),
  message: MessageSchema.optional(),
  postback: PostbackSchema.optional(),
  /** Sent to the app the thread was passed to (the inbox handing it back to us). */
  pass_thread_control: ThreadControlSchema.optional(),
  /** Sent to the app the thread was taken from; names the new owner. */
  take_thread_control: ThreadControlSchema.optional(),
});
export type MessagingItem = z.infer<typeof MessagingItemSchema>;

const EntrySchema = z.looseObject({
  id,
  time: z.number().optional(),
  /** Read one by one (read-events.ts): an item we cannot read is skipped, not the batch refused. */
  messaging: z.array(z.unknown()).max(1000).optional(),
  /** Events for an app that does not hold the thread (handover): not ours to answer. */
  standby: z.array(z.unknown()).optional(),
});

export const MessengerWebhookSchema = z.object({
  object: z.literal('page'),
  entry: z.array(EntrySchema).min(1).max(1000),
});
export type MessengerWebhook = z.infer<typeof MessengerWebhookSchema>;
