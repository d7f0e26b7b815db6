import { z } from 'zod';
import { STAGEABLE_KIND_NAMES } from '../actions/index.js';
import { TenantIdSchema } from './tenant-id.js';
import { sharedFlowNsProblems, resourceProblems } from './resource-gates.js';
import { checkToolOrder } from './tool-order.js';
import { piiProgramProblems } from './tenant-pattern.js';
import { GuardrailSettingsSchema } from './guardrail-settings.js';
import { checkManifest, ManifestSchema } from './manifest.js';
import { salvageConfig } from './salvage.js';
import { problemOfIssue } from './plain-issues.js';
import { flowNsProblems, manifestNameProblems, unknownKeyProblems } from './save-checks.js';
import { RUNTIME_LOCALES, WordOverridesSchema, type RuntimeLocale } from '../runtime-words.js';
import { registrationProblem } from './tool-registration.js';
import { READ_TOOL_KINDS } from './read-tool-kinds.js';

/**
 * A tenant's configuration, stored in Redis as JSON and validated on every read. `version` is
 * the schema version: a stored config of another version is refused with a clear error rather
 * than half-read.
 */
const name = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,47}$/, 'lower-case letters, digits and _ (start with a letter, at most 48)');

export const FlowSchema = z.object({
  name,
  /** ManyChat flow namespace, e.g. content20180221085508_278589. */
  ns: z.string().min(1),
  description: z.string().min(1),
  /** Words that suggest the flow; the offline rule model uses them, a real model reads the description. */
  keywords: z.array(z.string().min(1)).default([]),
});

/**
 * A message the tenant wrote in advance (a price list, directions, a policy) that a
 * `send_content` tool may send: the model chooses one by name, never writes its text. The
 * Messenger Platform has no flows, so this is how a tool there sends something; ManyChat sends it
 * with `sendContent`.
 */
export const ContentSchema = z.object({
  name,
  description: z.string().min(1),
  /** Sent as it is. 2000 characters: the Messenger Send API's limit for a text message. */
  text: z.string().min(1).max(2000),
  /** Words that suggest it (as for flows): the action-support guardrail and the tool shortlist read them. */
  keywords: z.array(z.string().min(1)).default([]),
});

export const TagSchema = z.object({ name: z.string().min(1).max(64), description: z.string().default('') });

export const FieldSchema = z.object({
  name: z.string().min(1).max(64),
  /** How a person reads the field ("preferred class"): contacts' confirmations and approval cards say it. Absent: the name, underscores as spaces. */
  label: z.string().min(1).max(64).optional(),
  type: z.enum(['text', 'number', 'boolean', 'date']),
  description: z.string().default(''),
  /** For a choice field: the only values a tool may record. */
  choices: z.array(z.string().min(1)).optional(),
});

export const FaqEntrySchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  answer: z.string().min(1),
});

/** The languages the runtime's own words ship in (core/runtime-words.ts). */
export const TENANT_LOCALES = RUNTIME_LOCALES;
export type TenantLocale = RuntimeLocale;

export { READ_TOOL_KINDS, isReadToolKind, type ReadToolKind } from './read-tool-kinds.js';

/**
 * A built-in tool kind instantiated by the tenant under its own name: a read tool, or a staging
 * tool for an action kind that offers one (core/actions/).
 */
export const ToolInstanceSchema = z.object({
  name,
  kind: z.enum([...STAGEABLE_KIND_NAMES, ...READ_TOOL_KINDS]),
  description: z.string().min(1),
});

export const HandoffSchema = z.object({
  /** Tag added to the contact when a turn escalates (must be a configured tag). */
  tag: z.string().optional(),
  /** Reply the contact gets on escalation. */
  reply: z.string().min(1),
  /** How long the model stays silent for this contact after a handoff, unless released. */
  silenceMinutes: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 60)
    .default(24 * 60),
});

/** A Meta id (page, app): a digit string. */
const metaId = z.string().regex(/^\d{1,30}$/, 'a numeric Meta id');

/** Pages one tenant may list (an agency's set of pages for one business). */
export const MAX_MESSENGER_PAGES = 50;

/** The Page Inbox's app id: the Handover Protocol's target for a person in Meta Business Suite (docs/protocols.md). */
export const PAGE_INBOX_APP_ID = '263902037430900';

/**
 * The Messenger Platform channel. An event is processed only for a page listed here (an entry for
 * any other page is ignored and logged); each page's token is a sealed secret
 * (`messengerPageTokens[pageId]`, or `messengerPageAccessToken` for the first page). `appId` names the Meta app whose one callback URL
 * (`/v1/messenger/app/:appId`) delivers these pages. `handoverAppId`: the app an escalation passes
 * the thread to (Handover Protocol `pass_thread_control`; the Page Inbox is 263902037430900).
 */
export const MessengerSettingsSchema = z
  .object({
    /** Show `typing_on` to the contact while a turn runs (off the reply's path). */
    typingIndicator: z.boolean().default(false),
    /** Send `mark_seen` when a message's turn starts (off the reply's path). */
    markSeen: z.boolean().default(false),
    appId: metaId.optional(),
    /**
     * The pages this tenant answers, each with its own access token (the sealed secret
     * `messengerPageTokens[id]`; the first page may use `messengerPageAccessToken`): a reply goes out
     * with the token of the page the contact wrote to.
     */
    pages: z
      .array(z.object({ id: metaId, name: z.string().min(1).max(100).optional() }))
      .max(MAX_MESSENGER_PAGES, `at most ${MAX_MESSENGER_PAGES} pages per tenant`)
      .refine((pages) => new Set(pages.map((p) => p.id)).size === pages.length, 'a page is listed twice')
      .default([]),
    handoverAppId: metaId.optional(),
  })
  .prefault({});

export const TenantConfigSchema = z.object({
  version: z.literal(1),
  tenantId: TenantIdSchema,
  displayName: z.string().min(1),
  persona: z.string().min(1),
  /** The language the runtime's own words to contacts use (pending status, notices). */
  locale: z.enum(TENANT_LOCALES).default('en'),
  /**
   * The tenant's own versions of the runtime's words, per language and key (core/runtime-words.ts):
   * e.g. `{ "es": { "confirmPrompt": "¿Lo confirmas? {what}." } }`. A contact whose channel gives a
   * language gets that language's words; the others the locale's.
   */
  words: WordOverridesSchema.optional(),
  /** Hosted model id; ignored by the offline rule model. */
  modelId: z.string().min(1).default('gpt-4.1-mini'),
  /** Time budget of a synchronous turn; ManyChat waits ~10 s. */
  deadlineMs: z.number().int().min(500).max(9500).default(8000),
  fallbackReply: z.string().min(1),
  /** What a contact is told while an operator has the tenant suspended (no model call, nothing done). */
  suspendedReply: z.string().min(1).max(640).default("Thanks for your message! We can't reply here right now."),
  /**
   * How long a contact's words are kept (turn records, history, outbox entries, pending rows, the
   * finish-turn job): every key that holds them expires after this many days at most.
   */
  retentionDays: z.number().int().min(2).max(365).default(30),
  /** Sent at the deadline when a turn is still running (empty: an empty Dynamic Block). */
  holdingReply: z.string().max(2000).default(''),
  /**
   * A deferred turn keeps running in the background until this many ms after it arrived. The
   * default stays inside Workers' waitUntil allowance (about 30 s after the response, which goes
   * out at the 8 s deadline); a run cut short anyway is finished by the finish-turn job.
   */
  asyncDeadlineMs: z.number().int().min(5000).max(120_000).default(35_000),
  /**
   * Hedged model calls: a model call that has not answered after `afterMs` is sent again and the
   * first answer wins (safe because a model call has no side effect; see src/models/hedged-model.ts).
   * Sooner when the webhook's answer is near: a call is hedged no later than `freshCallMs` before
   * the answer is due (src/models/hedge-timing.ts), so a turn's second call still gets a fresh try
   * in time (0: the fixed `afterMs` alone). 3.5 s is about the p90 of one step under the eval's gpt-4.1-mini latency model; with
   * 4.5 s as the latest, about one call in eleven is hedged. `maxPerMinute` caps the extra calls per
   * tenant (per isolate).
   */
  hedging: z
    .object({
      enabled: z.boolean().default(true),
      afterMs: z.number().int().min(200).max(9000).default(4500),
      freshCallMs: z.number().int().min(0).max(9000).default(3500),
      maxPerMinute: z.number().int().min(0).max(10_000).default(60),
    })
    .prefault({}),
  flows: z.array(FlowSchema).default([]),
  /** Prepared messages a `send_content` tool may send (see ContentSchema). */
  contents: z.array(ContentSchema).default([]),
  tags: z.array(TagSchema).default([]),
  fields: z.array(FieldSchema).default([]),
  faq: z.array(FaqEntrySchema).default([]),
  tools: z.array(ToolInstanceSchema).default([]),
  /** Declarations of every tool the tenant may register (see tools/manifest.ts). */
  manifest: ManifestSchema.default({}),
  /**
   * The tool shortlist (tools/shortlist.ts): when the tool menu's estimated prompt tokens pass
   * `maxToolTokens`, each turn offers only the tools and resources the contact's words make
   * relevant (pinned tools and `reply` always). Absent: the size past which the shortlist costs
   * less than the full menu with a warm prompt cache (tools/menu-cost.ts; about 4,800).
   */
  shortlist: z.object({ maxToolTokens: z.number().int().min(0).max(1_000_000) }).optional(),
  /** Canonical tool order override; must contain "<unlisted-tools>" exactly once. */
  toolOrder: z.array(z.string()).optional(),
  thresholds: z
    .object({
      /** Below this the turn escalates. */
      minConfidence: z.number().min(0).max(1).default(0.5),
      /** Per-guardrail time budget. */
      guardrailTimeoutMs: z.number().int().min(10).max(5000).default(1000),
    })
    .prefault({}),
  handoff: HandoffSchema,
  /** Conversation turns kept per contact. */
  historyTurns: z.number().int().min(0).max(50).default(10),
  messenger: MessengerSettingsSchema,
  /** Guardrail settings (deny-list, PII patterns, caps, rate limits, leak threshold); safe defaults. */
  guardrails: GuardrailSettingsSchema.prefault({}),
  /**
   * Where the tenant hears of what waits for it: a new pending approval is POSTed, signed
   * (Standard Webhooks; the secret at `GET /v1/tenants/:t/notifications/secret`), through the outbox.
   */
  notifications: z
    .object({
      approvals: z
        .object({
          /**
           * A plain endpoint (it verifies our signature). Absent: the tenant's sealed
           * `notificationUrl` secret, the only place a Slack incoming-webhook URL (a credential) may be.
           */
          url: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
          /** `standard`: the event as JSON; `slack`: a Slack incoming-webhook body (`text`, plus the event). */
          format: z.enum(['standard', 'slack']).default('standard'),
        })
        .optional(),
    })
    .prefault({}),
});

export type TenantConfig = z.infer<typeof TenantConfigSchema>;
export type TenantConfigInput = z.input<typeof TenantConfigSchema>;
export type FlowConfig = z.infer<typeof FlowSchema>;
export type ContentConfig = z.infer<typeof ContentSchema>;
export type FieldConfig = z.infer<typeof FieldSchema>;
export type ToolInstance = z.infer<typeof ToolInstanceSchema>;

/** Cross-field rules zod's shape cannot say: names unique, references resolve. */
export function checkTenantConfig(config: TenantConfig, mode: 'save' | 'load' = 'save'): string[] {
  const problems: string[] = [];
  const dup = (what: string, names: string[]) => {
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) problems.push(`${what} "${n}" is declared twice`);
      seen.add(n);
    }
  };
  dup(
    'flow',
    config.flows.map((f) => f.name),
  );
  dup(
    'content',
    config.contents.map((c) => c.name),
  );
  dup(
    'tag',
    config.tags.map((t) => t.name),
  );
  dup(
    'field',
    config.fields.map((f) => f.name),
  );
  dup(
    'tool',
    config.tools.map((t) => t.name),
  );
  if (config.tools.some((t) => t.name === 'reply'))
    problems.push('tool name "reply" is reserved for the end-of-turn reply');
  // Checked when saved; a stored config that slipped past fails its turns cleanly at prompt assembly instead.
  if (config.toolOrder && mode === 'save') {
    problems.push(...checkToolOrder(config.toolOrder, [...config.tools.map((t) => t.name), 'reply']));
    // The tool-order RFC: naming a tool that will not be registered is a configuration error (a
    // stored config that does still loads; its turns skip the name).
    for (const name of new Set(config.toolOrder)) {
      const instance = config.tools.find((t) => t.name === name);
      const problem = instance && registrationProblem(instance, config.manifest, config.tenantId);
      if (problem) problems.push(`toolOrder names "${name}", but ${problem}`);
    }
  }
  problems.push(...checkManifest(config.manifest));
  problems.push(...resourceProblems(config));
  if (mode === 'save') problems.push(...sharedFlowNsProblems(config));
  // The per-pattern bound is the schema's; the total is checked when saved (a stored config past it
  // is still bounded per turn by the content guardrail's matching budget, fail closed).
  if (mode === 'save') problems.push(...piiProgramProblems(config.guardrails.content.piiPatterns));
  // A Slack incoming-webhook URL is a bearer credential: stored sealed, never in the config (which
  // is shown, edited, exported and copied into outbox entries). A stored one still works until the next save.
  if (mode === 'save' && config.notifications.approvals?.format === 'slack' && config.notifications.approvals.url)
    problems.push(
      'notifications.approvals.url: a Slack webhook URL is a secret; leave url out and set it as the sealed secret notificationUrl (dashboard: Setup → Secrets)',
    );
  if (config.handoff.tag && !config.tags.some((t) => t.name === config.handoff.tag)) {
    problems.push(`handoff.tag "${config.handoff.tag}" is not a configured tag`);
  }
  problems.push(...messengerProblems(config));
  return problems;
}

/**
 * A Messenger tenant (one that lists pages): page ids unique, and an escalation that silences the
 * bot must reach a person — a thread handover or a notification — else the contact is told a
 * teammate will pick it up and nobody does.
 */
function messengerProblems(config: TenantConfig): string[] {
  const problems: string[] = [];
  const pages = config.messenger?.pages ?? [];
  const seen = new Set<string>();
  for (const p of pages) {
    if (seen.has(p.id)) problems.push(`messenger page "${p.id}" is listed twice`);
    seen.add(p.id);
  }
  const reachesPerson = Boolean(config.messenger?.handoverAppId) || Boolean(config.notifications?.approvals);
  if (pages.length && config.handoff.silenceMinutes > 0 && !reachesPerson) {
    problems.push(
      `handoff.silenceMinutes is ${config.handoff.silenceMinutes} but an escalation on Messenger would reach nobody: set messenger.handoverAppId (the Page Inbox is ${PAGE_INBOX_APP_ID}) or notifications.approvals, or set handoff.silenceMinutes to 0`,
    );
  }
  return problems;
}

export function parseTenantConfig(
  raw: unknown,
  mode: 'save' | 'load' = 'save',
): { ok: true; config: TenantConfig } | { ok: false; problems: string[] } {
  const parsed = TenantConfigSchema.safeParse(raw);
  const saveProblems = mode === 'save' ? saveOnlyProblems(raw) : [];
  if (!parsed.success) {
    const problems = [...parsed.error.issues.map(problemOfIssue), ...saveProblems];
    // Every problem in one answer: the cross-field rules run on what of the config validates.
    return {
      ok: false,
      problems: [...problems, ...crossFieldProblemsOfInvalid(raw, mode).filter((p) => !problems.includes(p))],
    };
  }
  const problems = [...saveProblems, ...checkTenantConfig(parsed.data, mode)];
  return problems.length ? { ok: false, problems } : { ok: true, config: parsed.data };
}

/** The rules of core/tenant/save-checks.ts, on the config as it was sent. */
function saveOnlyProblems(raw: unknown): string[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [];
  const r = raw as { flows?: unknown; tools?: unknown; manifest?: unknown };
  const flows = Array.isArray(r.flows)
    ? r.flows.map((f: unknown) => (f && typeof f === 'object' ? (f as { ns?: unknown }) : {}))
    : [];
  const toolNames = Array.isArray(r.tools)
    ? r.tools.flatMap((t) =>
        t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string'
          ? [(t as { name: string }).name]
          : [],
      )
    : [];
  const manifest =
    r.manifest && typeof r.manifest === 'object' && !Array.isArray(r.manifest)
      ? (r.manifest as Record<string, unknown>)
      : {};
  return [
    ...unknownKeyProblems(TenantConfigSchema, raw),
    ...flowNsProblems(flows),
    ...manifestNameProblems(manifest, toolNames),
  ];
}

/** The cross-field rules on what of an invalid config validates; a rule that cannot run on it is skipped. */
function crossFieldProblemsOfInvalid(raw: unknown, mode: 'save' | 'load'): string[] {
  const partial = salvageConfig(TenantConfigSchema, raw);
  const view = {
    flows: [],
    contents: [],
    tags: [],
    fields: [],
    faq: [],
    tools: [],
    manifest: {},
    ...partial,
    handoff: { reply: '', silenceMinutes: 0, ...(partial.handoff as object | undefined) },
  } as unknown as TenantConfig;
  try {
    return checkTenantConfig(view, mode);
  } catch {
    return [];
  }
}
