import { z } from 'zod';
import { TenantConfigSchema } from './tenant-config.js';

/**
 * The tenant config's JSON Schema, generated from the zod schema (`z.toJSONSchema`), as a client
 * writes it (`io: input`: fields with defaults are optional). Served at
 * `GET /v1/tenants/:t/config/schema` and rendered as the README's config reference
 * (`npm run docs`). The top-level descriptions live here; the record's type makes a field
 * without one a compile error, so the reference cannot fall behind the schema.
 */
export const CONFIG_FIELD_DESCRIPTIONS: Record<keyof typeof TenantConfigSchema.shape, string> = {
  version: 'Schema version; always 1. A stored config of another version is refused, not half-read.',
  tenantId:
    "The tenant's id (1–63 lower-case letters, digits, hyphens). Must equal the URL's tenant; omit it to take the URL's.",
  displayName: 'The business name the persona speaks for.',
  persona: 'Who the agent is and how it speaks (system prompt).',
  locale:
    "Language of the runtime's own words to contacts (pending status, notices) when the channel gives no language the runtime speaks.",
  words:
    "The tenant's own versions of the runtime's words, per language (en es pt de fr it tr id) and key; each keeps its key's placeholders.",
  modelId: 'Hosted model id (ignored by the offline rule model).',
  deadlineMs:
    'Time budget of a synchronous turn (ManyChat waits about 10 s); past it the holding reply is sent and the turn finishes in the background.',
  fallbackReply: 'Sent when a turn is vetoed or fails.',
  suspendedReply: 'Sent while an operator has the tenant suspended (no model call).',
  retentionDays: "How long a contact's words are kept (turn records, history, outbox entries, pending rows).",
  holdingReply: 'Sent at the deadline while a turn is still running (empty: an empty Dynamic Block).',
  asyncDeadlineMs: 'How long a deferred turn may keep running after it arrived.',
  hedging:
    'Hedged model calls: a call not answered after afterMs is sent again and the first answer wins; sooner when the answer is due in less than freshCallMs more (a fresh call still has time); maxPerMinute caps the extra calls.',
  flows: "ManyChat flows the agent may send: name, namespace (`ns`, from the flow's URL), description, keywords.",
  contents:
    'Prepared messages a send_content tool may send (on Messenger and ManyChat): name, description, text (sent as written, at most 2000 characters), keywords. The model picks one by name; it never writes the text.',
  tags: 'ManyChat tags the agent may add or remove.',
  fields: 'ManyChat custom fields the agent may set; `choices` makes a choice field.',
  faq: 'Question/answer entries the search_faq tool reads.',
  tools: "Tool instances: a built-in kind under the tenant's own name, each declared in `manifest`.",
  manifest:
    'Per tool: effect (read | write | destructive), confirm, approval, guidance, resources, answers_directly, undo.',
  shortlist:
    'The tool shortlist: when the tool menu passes maxToolTokens (estimated prompt tokens; absent: the size past which the shortlist costs less than the full menu with a warm prompt cache, about 4,800 for a short persona), a turn is offered only the tools and flows/tags/fields its words make relevant; pinned tools and reply always.',
  toolOrder:
    'The order tools are offered to the model; must contain `"<unlisted-tools>"` exactly once. Absent: lexicographic.',
  thresholds: 'minConfidence (below it the turn escalates) and guardrailTimeoutMs (per guardrail).',
  handoff: 'Escalation: the tag added (must be a configured tag), the reply, and how long the model stays silent.',
  historyTurns: 'Conversation turns kept per contact and shown to the model.',
  notifications:
    'approvals: { url?, format: standard | slack } — a new pending approval is POSTed there, signed (Standard Webhooks; secret at GET …/notifications/secret), delivered through the outbox. No url: the sealed secret notificationUrl (required for slack: its URL is a credential).',
  guardrails: 'Guardrail settings: deny-list, PII patterns, caps, rate limits, leak threshold, messaging window.',
  messenger: 'Messenger channel settings: typingIndicator (send typing_on while a turn runs).',
};

let cached: Record<string, unknown> | null = null;

/** The JSON Schema (draft 2020-12) of a tenant config as a client writes it. */
export function tenantConfigJsonSchema(): Record<string, unknown> {
  if (cached) return cached;
  const described = z.object(
    Object.fromEntries(
      Object.entries(TenantConfigSchema.shape).map(([key, field]) => [
        key,
        (field as z.ZodType).describe(CONFIG_FIELD_DESCRIPTIONS[key as keyof typeof CONFIG_FIELD_DESCRIPTIONS]),
      ]),
    ),
  );
  // Tenant patterns are checked by a refinement (RE2 syntax), which JSON Schema cannot say: they stay strings.
  const schema = z.toJSONSchema(described, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> & {
    required?: string[];
  };
  // A PUT may leave tenantId out (the URL names the tenant); a different one is refused.
  cached = {
    title: 'staged-agent tenant config',
    ...schema,
    required: (schema.required ?? []).filter((k) => k !== 'tenantId'),
  };
  return cached;
}
