import { z } from 'zod';
import { KeyIdSchema } from './storage/keys.js';
import { TenantIdSchema } from './tenant/tenant-id.js';
import { StagedActionSchema } from './staged-action.js';
import { ManyChatChannelSchema } from './manychat-channels.js';

/**
 * What the outbox must perform for one committed turn: its actions in order. The entry is
 * written in the same MULTI as the turn record, so a committed turn always has one.
 */
export const OutboxEntrySchema = z.object({
  turnId: z.string(),
  tenantId: z.string(),
  channel: z.enum(['manychat', 'messenger']),
  contactId: z.string(),
  /**
   * ManyChat: the contact's channel and last message time there, for every message the entry sends
   * that does not name its own (a tenant's prepared message, a notice): its shape and its window.
   * Absent: Facebook, no window judged here (entries written before, Messenger).
   */
  surface: ManyChatChannelSchema.optional(),
  lastInboundAt: z.iso.datetime().optional(),
  actions: z.array(StagedActionSchema),
  state: z.enum(['pending', 'done', 'failed']),
  createdAt: z.string(),
  attempts: z.number().int().min(0),
  /** The tenant's retention when committed: its ledger and dead letters expire with it. */
  retentionDays: z.number().int().min(1).optional(),
  /**
   * The turn that staged these actions, when the entry is not that turn's own (a contact's Yes, a
   * tenant's approval, an expiry notice: the entry is named by the pinned row). Dead letters name it.
   */
  stagedByTurnId: z.string().optional(),
  /**
   * Replies in message order (Messenger): this entry answers the contact's message sent at `at`
   * (ms), named `member` in the contact's reply-order set. It is delivered only once no earlier
   * message of the contact still waits for its reply (outbox/reply-order.ts).
   */
  sequence: z.object({ member: z.string().regex(/^[0-9a-f]{64}$/), at: z.number().int().nonnegative() }).optional(),
});
export type OutboxEntry = z.infer<typeof OutboxEntrySchema>;

/** Per-action ledger state. `unknown`: claimed, no result recorded (crash mid-call) — never resent. */
export const LedgerStateSchema = z.enum(['pending', 'claimed', 'done', 'unknown', 'dead']);
export type LedgerState = z.infer<typeof LedgerStateSchema>;

export const LedgerRowSchema = z.object({
  state: LedgerStateSchema,
  at: z.string(),
  attempts: z.number().int().min(0),
  /** The API's own words for a dead action or the last failure. */
  detail: z.string().optional(),
});
export type LedgerRow = z.infer<typeof LedgerRowSchema>;

/** The body QStash carries to the delivery endpoint: ids only, the entry is read from Redis. */
export const DeliveryMessageSchema = z.object({ tenantId: TenantIdSchema, turnId: KeyIdSchema });
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/**
 * The one way an outbox entry comes into being, whoever commits it (a turn, a contact's Yes, a
 * tenant's approval, a notice): pending, never attempted, its actions in the order given.
 */
export function buildOutboxEntry(input: {
  entryId: string;
  tenantId: string;
  channel: OutboxEntry['channel'];
  contactId: string;
  actions: OutboxEntry['actions'];
  now: Date;
  surface?: OutboxEntry['surface'];
  lastInboundAt?: string;
  retentionDays?: number;
  stagedByTurnId?: string;
  sequence?: OutboxEntry['sequence'];
}): OutboxEntry {
  return {
    turnId: input.entryId,
    tenantId: input.tenantId,
    channel: input.channel,
    contactId: input.contactId,
    ...(input.surface ? { surface: input.surface } : {}),
    ...(input.lastInboundAt ? { lastInboundAt: input.lastInboundAt } : {}),
    actions: input.actions,
    state: 'pending',
    createdAt: input.now.toISOString(),
    attempts: 0,
    ...(input.retentionDays ? { retentionDays: input.retentionDays } : {}),
    ...(input.stagedByTurnId && input.stagedByTurnId !== input.entryId ? { stagedByTurnId: input.stagedByTurnId } : {}),
    ...(input.sequence ? { sequence: input.sequence } : {}),
  };
}
