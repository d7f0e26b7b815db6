import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { StagedActionSchema, type StagedAction } from './staged-action.js';
import { sha256Hex } from './security/digest.js';
import { signFor, verifyFor, type SecretsInput } from './security/signing-keys.js';
import { ManyChatChannelSchema } from './manychat-channels.js';

/**
 * The pinned terms of a pending confirmation or an approval: the exact calls (tool and
 * canonical-JSON arguments), for whom, until when. Written once (SET NX) and signed with an
 * HMAC, so no code path can change them and a change made behind the code's back is detected
 * before anything is performed.
 */
export const PinnedTermsSchema = z.object({
  id: z.string(),
  kind: z.enum(['confirmation', 'approval']),
  tenantId: z.string(),
  contactId: z.string(),
  channel: z.enum(['manychat', 'messenger']),
  /**
   * ManyChat: the channel the contact was asked on (Instagram, WhatsApp, Telegram, Facebook), so
   * every later message of the row (the Yes answer, what a Yes or an approval sends, a rejection or
   * expiry notice) has that channel's shape. Absent on rows written before: Facebook, and logged.
   */
  surface: ManyChatChannelSchema.optional(),
  /** ManyChat: the contact's last message time on that channel when asked (its messaging window). Absent on older rows. */
  lastInboundAt: z.iso.datetime().optional(),
  turnId: z.string(),
  actions: z.array(StagedActionSchema).min(1),
  /** One entry per action: the tool and its arguments as canonical JSON (sorted keys). */
  pinned: z.array(z.object({ tool: z.string(), args: z.string() })),
  /**
   * One per action: the digest of the call it makes (kind + canonical arguments), naming the
   * contact's one pending row for that call (`pendingCall` key). Absent on rows written before.
   */
  callDigests: z.array(z.string().regex(/^[0-9a-f]{64}$/)).optional(),
  /** What a person reads before deciding. */
  card: z.string(),
  /** The language the contact was asked in (core/runtime-words.ts): the answer, rejection and expiry notices use it. Absent on older rows. */
  locale: z.string().max(8).optional(),
  /**
   * Who wrote these terms when a person did (an approver's correction: `dashboard:<user>` or
   * `admin`), and the approval they correct. Absent: the turn pinned what the model staged.
   */
  authoredBy: z.string().max(200).optional(),
  corrects: z.string().max(200).optional(),
  /** Single-use value the contact's button must echo (confirmations). */
  nonce: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  sig: z.string(),
});
export type PinnedTerms = z.infer<typeof PinnedTermsSchema>;

/** The digest of the call an action makes: what "the same call" means for a pending row. */
export function callDigest(action: Pick<StagedAction, 'kind' | 'args'>): Promise<string> {
  return sha256Hex(`${action.kind}\n${canonicalJson(action.args)}`);
}

/** Signed with the pinned-terms key of the current SESSION_SECRET. */
export async function signTerms(
  terms: Omit<PinnedTerms, 'sig' | 'pinned' | 'callDigests'>,
  secret: SecretsInput,
): Promise<PinnedTerms> {
  const pinned = terms.actions.map((a) => ({ tool: a.tool, args: canonicalJson(a.args) }));
  const callDigests = await Promise.all(terms.actions.map(callDigest));
  const unsigned = { ...terms, pinned, callDigests };
  return { ...unsigned, sig: await signFor(secret, 'pinned-terms', canonicalJson(unsigned)) };
}

/**
 * True only when the signature matches (under the current secret, or the previous one during a
 * rotation) and every action still equals its pinned call.
 */
export async function verifyTerms(terms: PinnedTerms, secret: SecretsInput): Promise<boolean> {
  const { sig, ...unsigned } = terms;
  if (!(await verifyFor(secret, 'pinned-terms', canonicalJson(unsigned), sig))) return false;
  return (
    terms.actions.length === terms.pinned.length &&
    terms.actions.every((a, i) => terms.pinned[i]?.tool === a.tool && terms.pinned[i]?.args === canonicalJson(a.args))
  );
}
