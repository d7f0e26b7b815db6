import { MAX_CAPTION_CHARS, MAX_QUICK_REPLIES, ReplySchema } from '../core/reply.js';
import { escalate, pass, veto, type Guardrail } from './guardrail.js';

/**
 * The reply parses and fits the channel: Messenger text is at most 2000 characters (counted in
 * UTF-16 units, which is never fewer than the characters Messenger counts); ManyChat's Dynamic
 * Block allows at most 11 quick replies, captions of at most 20 characters. Captions must be
 * distinct and not blank (two identical buttons are ambiguous; a blank one is refused by
 * ManyChat), and the text carries no control characters other than line breaks and tabs. A
 * missing reply escalates (the model failed to end its turn); a malformed or oversized one is
 * vetoed.
 */
export const MAX_TEXT_CHARS = 2000;
/** The count and the caption length are ReplySchema's own rules: a reply breaking them does not parse. */
export { MAX_CAPTION_CHARS, MAX_QUICK_REPLIES };

/**
 * Characters that show nothing: white space, format characters (zero-width space and joiners,
 * word joiner, BOM, bidi marks) and the filler letters that render blank (Hangul fillers, the
 * Braille blank). A text of only these is an empty bubble to the contact.
 */
const INVISIBLE = /[\s\p{Cf}\u115F\u1160\u3164\uFFA0\u2800]/gu;
const blank = (text: string) => !text.replace(INVISIBLE, '');

export const replySchemaGuardrail: Guardrail = {
  name: 'reply-schema',
  check({ rawReply, reply: accepted }) {
    if (rawReply == null) return escalate('the model gave no reply');
    const parsed = ReplySchema.safeParse(rawReply);
    if (!parsed.success)
      return veto(
        `the reply does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    // A well-formed reply the loop set aside (it came with a call that needed another step, and
    // the model gave none after) is no reply: the turn must not pass on it.
    if (!accepted) return escalate('the model ended without a reply the turn could use');
    const reply = parsed.data;
    if (blank(reply.text)) return veto('the reply text is empty (nothing visible)');
    if (reply.text.length > MAX_TEXT_CHARS)
      return veto(`the reply text has ${reply.text.length} characters; the channel allows ${MAX_TEXT_CHARS}`);
    // Too many captions, or one too long, did not parse (ReplySchema): here only what the schema cannot say.
    const qr = reply.quickReplies ?? [];
    if (qr.some(blank)) return veto('a quick reply caption is blank');
    const seen = new Set<string>();
    for (const c of qr) {
      const key = c.trim().toLowerCase();
      if (seen.has(key)) return veto(`quick reply "${c}" appears twice`);
      seen.add(key);
    }
    // Control characters other than \t \n \r render as garbage or break the channel's JSON consumers.
    if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(reply.text))
      return veto('the reply text contains control characters');
    return pass();
  },
};
