import { z } from 'zod';
import { durationMs } from './relative-time.js';

/**
 * What a case expects of a turn (documented in evals/CASES.md). Every field is optional; only the
 * ones given are checked. Unknown fields are errors, so a typo does not silently pass.
 */

export const ActionExpectSchema = z
  .object({
    kind: z.string(),
    /** The tool that staged it, or "system:handoff" for the handoff. */
    tool: z.string().optional(),
    /** Key arguments; each one given must be equal (others are ignored). */
    args: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ActionExpect = z.infer<typeof ActionExpectSchema>;

export const PerformedCallNames = [
  'sendFlow',
  'sendContent',
  'addTag',
  'removeTag',
  'setField',
  'passThreadControl',
  'takeThreadControl',
] as const;
export const PerformedExpectSchema = z
  .object({
    call: z.enum(PerformedCallNames),
    /** sendFlow: the flow's name in the tenant config (compared through its namespace). */
    flow: z.string().optional(),
    /** addTag / removeTag: the tag's name. */
    tag: z.string().optional(),
    /** setField: the field's name and value. */
    field: z.string().optional(),
    value: z.unknown().optional(),
    /** sendContent: a substring of the sent text. */
    textContains: z.string().optional(),
    /** passThreadControl (Messenger Handover Protocol): the app the thread was handed to. */
    targetAppId: z.string().optional(),
  })
  .strict();
export type PerformedExpect = z.infer<typeof PerformedExpectSchema>;

/** Statuses a pinned row (confirmation or approval) can have. */
export const RowStatuses = [
  'pending',
  'confirmed',
  'declined',
  'approved',
  'rejected',
  'expired',
  'performed',
  'superseded',
  'refused',
] as const;
export const RowNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'a row name is a letter, then letters, digits, _ or - (at most 40)');

export const PendingExpectSchema = z
  .object({
    kind: z.enum(['confirmation', 'approval']),
    /** The pinned tool. */
    tool: z.string().optional(),
    /** Pinned arguments (from the row's canonical JSON); each one given must be equal. */
    args: z.record(z.string(), z.unknown()).optional(),
    /** The row's status when the turn was observed (rows a turn creates start pending). */
    status: z.enum(RowStatuses).optional(),
    /** Expiry minus creation, e.g. "1h" (±1 min). Every row must have an expiry whether or not this is given. */
    expiresIn: z
      .string()
      .refine((v) => durationMs(v) !== null, 'a duration such as "1h", "24h", "90m"')
      .optional(),
    /** Names the row for later turns: `approve: "<name>"`, `rows: { "<name>": "approved" }`. */
    as: RowNameSchema.optional(),
  })
  .strict();
export type PendingExpect = z.infer<typeof PendingExpectSchema>;

export const RepliesExpectSchema = z
  .object({
    /**
     * same: every delivery got the same reply text. same-or-no-op (default): each reply is the
     * turn's reply (the first that is not a no-op) or an accepted no-op answer.
     */
    match: z.enum(['same', 'same-or-no-op']).default('same-or-no-op'),
    /** Substrings that make a reply an accepted no-op answer (case-insensitive). The empty reply always is one. */
    noOp: z.array(z.string().min(1)).default([]),
    /** Every reply that is not a no-op contains these (case-insensitive). */
    contains: z.array(z.string()).optional(),
    /** No delivery's reply, no-op answers included, contains these (case-insensitive). */
    notContains: z.array(z.string()).optional(),
  })
  .strict();
export type RepliesExpect = z.infer<typeof RepliesExpectSchema>;

const decision = z.enum(['pass', 'veto', 'escalate', 'error']);

export const ExpectationBase = z
  .object({
    /** HTTP status of every delivery. Default 200 (not applied when `statuses` is given). */
    status: z.number().int().optional(),
    /** HTTP status per delivery: in order for sequential deliveries, in any order for concurrent ones. */
    statuses: z.array(z.number().int()).min(1).optional(),
    decision: decision.optional(),
    /** Substrings of the turn record's decisionReason (case-insensitive), e.g. the deciding guardrail's name. */
    reasonContains: z.array(z.string()).optional(),
    /** Substrings of what the contact was told (case-insensitive): the webhook's reply; for a tenant decision, the texts sent to the contact. */
    replyContains: z.array(z.string()).optional(),
    replyNotContains: z.array(z.string()).optional(),
    /** The reply text is empty (no message sent back, e.g. a contact already with a human). */
    replyEmpty: z.boolean().optional(),
    /** A check on every delivery's reply, not only the first. */
    replies: RepliesExpectSchema.optional(),
    /** Exactly these staged actions, in order. */
    staged: z.array(ActionExpectSchema).optional(),
    /** Exactly these actions handed to the outbox, in order. */
    committed: z.array(ActionExpectSchema).optional(),
    /** Exactly these successful ManyChat calls for the contact, in order, after the outbox settles. */
    performed: z.array(PerformedExpectSchema).optional(),
    /** Exactly the pinned calls of the rows (confirmations, approvals) this turn created, in order. */
    pending: z.array(PendingExpectSchema).optional(),
    /** Status of rows named by an earlier `pending[].as`, after this turn. */
    rows: z.record(RowNameSchema, z.enum(RowStatuses)).optional(),
    /** Every ManyChat call for the contact, including refused and faulted attempts. */
    apiCalls: z.number().int().min(0).optional(),
    /** The webhook answered before the turn finished (header x-turn-deferred: 1, or the record says so). */
    deferred: z.boolean().optional(),
    /** Each delivery was answered within `max` ms (the webhook's own latency; for a tenant decision, the API's). */
    webhookMs: z
      .object({ max: z.number().int().min(1).max(120_000) })
      .strict()
      .optional(),
    /** Model calls this turn made (counted at the model sandbox). */
    modelCalls: z.number().int().min(0).optional(),
    /** Substrings of the last model request of the turn (its messages, as JSON). */
    promptContains: z.array(z.string()).optional(),
    /**
     * The tool shortlist (tools/shortlist.ts) on this turn: it was active (the turn record has one),
     * offered these tools and not those, and widened (or not) for step 2. With `--shortlist off`
     * the check is instead that the record has no shortlist (the full menu).
     */
    shortlist: z
      .object({
        offers: z.array(z.string()).optional(),
        notOffered: z.array(z.string()).optional(),
        widened: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /**
     * Messenger: the event was ignored — no case tenant claimed it, no model call, nothing sent to
     * the contact (an entry for a page its tenant does not own).
     */
    ignored: z.boolean().optional(),
    /** The tools the turn's first model request offered (step 1's menu, by name): these, and not those (the tenant's own). */
    modelTools: z
      .object({ offered: z.array(z.string()).optional(), notOffered: z.array(z.string()).optional() })
      .strict()
      .optional(),
    /**
     * Exactly these notifications reached the turn tenant's channel (its `notify` receiver) during
     * the turn, in order: the event's `type`, substrings of the body as sent.
     */
    notifications: z
      .array(z.object({ type: z.string(), contains: z.array(z.string()).optional() }).strict())
      .optional(),
    /** Distinct x-turn-id values over the deliveries. */
    distinctTurns: z.number().int().min(0).optional(),
    /** Deliveries answered with x-duplicate-of. */
    duplicates: z.number().int().min(0).optional(),
    /** Every delivery got the same reply text. */
    sameReply: z.boolean().optional(),
  })
  .strict();

export const ExpectationSchema = ExpectationBase.extend({
  /** Alternatives: the turn passes if the base expectations and any one alternative hold. */
  anyOf: z.array(ExpectationBase).min(1).optional(),
  /** How long to wait for the outbox to perform (ms). Default 15000. */
  performedTimeoutMs: z.number().int().min(0).max(120_000).optional(),
}).strict();
export type Expectation = z.infer<typeof ExpectationSchema>;
export type ExpectationCore = z.infer<typeof ExpectationBase>;
