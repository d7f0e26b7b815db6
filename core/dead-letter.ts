import { z } from 'zod';
import { ActionKindSchema } from './staged-action.js';

/**
 * One item of a tenant's dead-letter list: an action delivery gave up on. `dead` = the API refused
 * it for good; `unknown` = a send that may or may not have happened (never resent automatically).
 * The list is the dead-letter store's (core/storage/dead-letter-list.ts); what goes on it and when
 * is outbox/dead-letters.ts's and the ledger's.
 */
export const DeadLetterSchema = z.object({
  tenantId: z.string(),
  /** The turn that staged the action (for an approved or confirmed action too: not the row's id). */
  turnId: z.string(),
  /** The outbox entry that holds it — what a re-drive names; the turn's id unless a pinned row committed it. Absent in older letters: turnId. */
  entryId: z.string().optional(),
  actionId: z.string(),
  contactId: z.string(),
  /** Absent when the entry that held the action no longer parses (a kind since retired, say): what is known of it is listed. */
  kind: ActionKindSchema.optional(),
  tool: z.string(),
  summary: z.string(),
  idempotent: z.boolean(),
  state: z.enum(['dead', 'unknown']),
  /** The API's own words, or why the outcome is unknown. */
  detail: z.string(),
  at: z.string(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;
