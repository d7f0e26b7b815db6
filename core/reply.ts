import { z } from 'zod';

/**
 * The model's structured end of turn. `escalate` is the only way the model can ask for a human:
 * a typed field that code reads, never a phrase in text.
 */
/** ManyChat's Dynamic Block: at most 11 quick replies, captions of at most 20 characters (UTF-16 units). */
export const MAX_QUICK_REPLIES = 11;
export const MAX_CAPTION_CHARS = 20;

export const ReplySchema = z.object({
  text: z.string().describe('The message to send to the contact.'),
  escalate: z.boolean().describe('True only when a human must take over.'),
  confidence: z
    .number()
    .min(0)
    .max(1)
    .describe('How sure you are that the reply and the staged actions are right, 0..1.'),
  reason: z.string().describe('One short sentence: why this reply (for the tenant, not the contact).'),
  quickReplies: z
    .array(z.string().min(1).max(MAX_CAPTION_CHARS))
    .max(MAX_QUICK_REPLIES)
    .optional()
    .describe('Optional short button captions.'),
});
export type Reply = z.infer<typeof ReplySchema>;
