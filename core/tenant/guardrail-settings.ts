import { z } from 'zod';
import { regexProblem } from './tenant-pattern.js';

/**
 * A tenant's guardrail settings: one field of the tenant config (`guardrails`), every part with
 * a safe default so an existing config without it is read unchanged.
 */

/** ManyChat's documented cap: 100 sendFlow calls per contact per hour. */
export const MANYCHAT_SENDFLOW_PER_CONTACT_HOUR = 100;

/** Meta's message tags: the only way to send outside the 24-hour window. */
export const MessageTagSchema = z.enum([
  'ACCOUNT_UPDATE',
  'POST_PURCHASE_UPDATE',
  'CONFIRMED_EVENT_UPDATE',
  'HUMAN_AGENT',
]);
export type MessageTag = z.infer<typeof MessageTagSchema>;

export const PiiPatternSchema = z
  .object({
    /** Shown in the veto reason, never the matched text. */
    name: z.string().min(1).max(64),
    /** A regular expression in RE2 syntax (linear-time; no backreferences or lookaround), checked at save. */
    pattern: z.string().min(1),
    caseInsensitive: z.boolean().default(true),
  })
  .superRefine((p, ctx) => {
    // Compiled with its own flags (case folding grows the program); the message names the pattern.
    const problem = regexProblem(p.pattern, { caseInsensitive: p.caseInsensitive });
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `PII pattern "${p.name}": ${problem}` });
  });
export type PiiPattern = z.infer<typeof PiiPatternSchema>;

const hostname = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/,
    'a lower-case host name, optionally starting with "*."',
  );

export const ContentSettingsSchema = z.object({
  /** Phrases a reply must never contain (whole words, case- and spacing-insensitive). */
  denyPhrases: z.array(z.string().trim().min(2).max(200)).max(500).default([]),
  /** Payment card numbers (13–19 digits, a card network prefix, Luhn-valid) are never sent. */
  blockCardNumbers: z.boolean().default(true),
  /** Other PII the tenant forbids in replies and recorded field values. */
  piiPatterns: z.array(PiiPatternSchema).max(50).default([]),
});

export const LeakSettingsSchema = z.object({
  /** Word n-gram size for the overlap measure. */
  ngramWords: z.number().int().min(3).max(12).default(5),
  /** Veto when the reply reproduces at least this share of a prompt section's n-grams… */
  coverageThreshold: z.number().min(0.05).max(1).default(0.4),
  /** …and at least this many of them (short personas are not "leaked" by a greeting). */
  minSharedNgrams: z.number().int().min(1).max(100).default(5),
  /** Veto any verbatim run of this many consecutive prompt words, whatever the share. */
  maxVerbatimWords: z.number().int().min(6).max(500).default(20),
  /** Strings that must never reach a contact (e.g. an internal code the persona mentions). */
  secrets: z.array(z.string().min(6).max(200)).max(50).default([]),
});

export const ActionSettingsSchema = z.object({
  maxActionsPerTurn: z.number().int().min(0).max(20).default(5),
  maxFlowsPerTurn: z.number().int().min(0).max(10).default(2),
  /** Tags the model may never add or remove (the handoff tag is always protected). */
  protectedTags: z.array(z.string().min(1).max(64)).max(100).default([]),
  /** Hosts a staged send_content may carry media from. Empty: no media. */
  mediaHosts: z.array(hostname).max(50).default([]),
});

export const MessagingWindowSettingsSchema = z.object({
  /** Message tags the tenant is entitled to use for sends outside the 24-hour window. */
  allowedMessageTags: z.array(MessageTagSchema).default([]),
  /** Time allowed between the turn and the outbox performing an ungated send. */
  deliveryMarginMinutes: z.number().int().min(0).max(240).default(15),
  /** Time a send may wait for a contact's confirmation or a tenant's approval. */
  gatedMarginMinutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(60),
});

export const InjectionSettingsSchema = z.object({
  /**
   * Tags the model may add by its own judgement, without the contact's words asking for them
   * (classification tags such as "interested"). The instruction-pattern rules still apply.
   */
  unpromptedTags: z.array(z.string().min(1).max(64)).max(100).default([]),
});

export const RateLimitSettingsSchema = z.object({
  contactPerMinute: z.number().int().min(1).max(1000).default(10),
  /** Also bounds sendFlow per contact per hour: contactPerHour × maxFlowsPerTurn ≤ 100. */
  contactPerHour: z.number().int().min(1).max(10_000).default(45),
  tenantPerMinute: z.number().int().min(1).max(1_000_000).default(600),
  /** What a rate-limited contact is told (no model call is made). */
  reply: z
    .string()
    .min(1)
    .max(640)
    .default("You're sending messages faster than I can answer. Please wait a minute and write again."),
});

export const GuardrailSettingsSchema = z
  .object({
    content: ContentSettingsSchema.prefault({}),
    leak: LeakSettingsSchema.prefault({}),
    actions: ActionSettingsSchema.prefault({}),
    messagingWindow: MessagingWindowSettingsSchema.prefault({}),
    injection: InjectionSettingsSchema.prefault({}),
    rateLimit: RateLimitSettingsSchema.prefault({}),
  })
  .superRefine((s, ctx) => {
    // The per-contact sendFlow cap is enforced by construction, without a Redis round trip in
    // the turn: at most contactPerHour turns an hour, each with at most maxFlowsPerTurn flows.
    const worst = s.rateLimit.contactPerHour * s.actions.maxFlowsPerTurn;
    if (worst > MANYCHAT_SENDFLOW_PER_CONTACT_HOUR) {
      ctx.addIssue({
        code: 'custom',
        path: ['rateLimit', 'contactPerHour'],
        message: `contactPerHour (${s.rateLimit.contactPerHour}) × actions.maxFlowsPerTurn (${s.actions.maxFlowsPerTurn}) = ${worst} flows an hour; ManyChat allows ${MANYCHAT_SENDFLOW_PER_CONTACT_HOUR} per contact`,
      });
    }
  });

export type GuardrailSettings = z.infer<typeof GuardrailSettingsSchema>;
export type GuardrailSettingsInput = z.input<typeof GuardrailSettingsSchema>;
export type RateLimitSettings = z.infer<typeof RateLimitSettingsSchema>;
