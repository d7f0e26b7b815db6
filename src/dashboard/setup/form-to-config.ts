import { parseUntrustedJson } from '../../http/untrusted-json.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';

/**
 * The setup form's fields → a config candidate. Everything the form does not show (tool
 * instances, retention, version, …) is kept from the current config; the candidate is then
 * validated whole by the turn's own schema. Values that are not what the schema wants are passed
 * through as typed (a number field holding "abc" stays a string) so the schema names the problem.
 */
export type FormFields = Record<string, string | File | (string | File)[]>;

const text = (form: FormFields, name: string): string | undefined => {
  const value = form[name];
  const one = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof one === 'string' ? one : undefined;
};
const trimmed = (form: FormFields, name: string) => (text(form, name) ?? '').trim();
const lines = (value: string) =>
  value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
const commaList = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
const checked = (form: FormFields, name: string) => text(form, name) === 'on' || text(form, name) === 'yes';

/** A number as the schema should see it: a number when it reads as one, else the text itself. */
function numeric(value: string): number | string | undefined {
  if (value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

/** Row indices present in the form for a list section (`flows.0.name`, `flows.1.name`, …). */
function rowIndices(form: FormFields, section: string): number[] {
  const found = new Set<number>();
  const pattern = new RegExp(`^${section}\\.(\\d{1,3})\\.`);
  for (const key of Object.keys(form)) {
    const m = pattern.exec(key);
    if (m) found.add(Number(m[1]));
  }
  return [...found].sort((a, b) => a - b);
}

/** A list section's rows: a row marked "remove", or one left entirely blank (the empty "add" row), is dropped. */
function rows<T>(
  form: FormFields,
  section: string,
  fields: string[],
  build: (get: (f: string) => string, i: number) => T,
): T[] {
  const out: T[] = [];
  for (const i of rowIndices(form, section)) {
    const get = (f: string) => trimmed(form, `${section}.${i}.${f}`);
    if (checked(form, `${section}.${i}.remove`)) continue;
    if (fields.every((f) => get(f) === '')) continue;
    out.push(build(get, i));
  }
  return out;
}

/** A pasted ManyChat flow address is cut down to its flow id (the schema then checks the id's shape). */
function flowNs(value: string): string {
  if (!/^https?:\/\//i.test(value)) return value;
  return /content\d{8,20}_\d{1,12}/.exec(value)?.[0] ?? value;
}

type Candidate = Record<string, unknown>;

function applyPersona(form: FormFields, candidate: Candidate) {
  candidate.displayName = trimmed(form, 'displayName');
  candidate.persona = trimmed(form, 'persona');
  candidate.modelId = trimmed(form, 'modelId');
  candidate.locale = trimmed(form, 'locale');
  candidate.deadlineMs = numeric(trimmed(form, 'deadlineMs'));
  candidate.holdingReply = text(form, 'holdingReply') ?? '';
  candidate.fallbackReply = trimmed(form, 'fallbackReply');
}

function applyCatalogue(form: FormFields, candidate: Candidate) {
  candidate.flows = rows(form, 'flows', ['name', 'ns', 'description', 'keywords'], (get) => ({
    name: get('name'),
    ns: flowNs(get('ns')),
    description: get('description'),
    keywords: commaList(get('keywords')),
  }));
  candidate.contents = rows(form, 'contents', ['name', 'description', 'text', 'keywords'], (get) => ({
    name: get('name'),
    description: get('description'),
    text: get('text'),
    keywords: commaList(get('keywords')),
  }));
  candidate.tags = rows(form, 'tags', ['name', 'description'], (get) => ({
    name: get('name'),
    description: get('description'),
  }));
  candidate.fields = rows(form, 'fields', ['name', 'label', 'description', 'choices'], (get) => {
    const choices = commaList(get('choices'));
    return {
      name: get('name'),
      ...(get('label') ? { label: get('label') } : {}),
      type: get('type') || 'text',
      description: get('description'),
      ...(choices.length ? { choices } : {}),
    };
  });
  candidate.faq = rows(form, 'faq', ['id', 'question', 'answer'], (get) => ({
    id: get('id'),
    question: get('question'),
    answer: get('answer'),
  }));
}

/**
 * The Tools section: one row a tool, its instance (name, kind, description) and its manifest
 * declaration together, so a declaration can never be keyed by a mistyped name. A row whose
 * effect is "not declared" keeps its tool but declares nothing (the tool is not offered).
 */
function applyTools(form: FormFields, candidate: Candidate) {
  const tools: Record<string, unknown>[] = [];
  const manifest: Record<string, unknown> = {};
  for (const i of rowIndices(form, 'tools')) {
    const get = (f: string) => trimmed(form, `tools.${i}.${f}`);
    if (checked(form, `tools.${i}.remove`)) continue;
    const declarationOnly = checked(form, `tools.${i}.declarationOnly`);
    const name = get('name');
    if (
      !declarationOnly &&
      ['name', 'kind', 'description', 'guidance', 'undo', 'resources'].every((f) => get(f) === '') &&
      get('effect') === ''
    )
      continue;
    if (!declarationOnly) tools.push({ name, kind: get('kind'), description: get('description') });
    if (!name || get('effect') === '') continue;
    const resources = commaList(get('resources'));
    manifest[name] = {
      effect: get('effect'),
      ...(get('confirm') ? { confirm: get('confirm') } : {}),
      ...(checked(form, `tools.${i}.approval`) ? { approval: 'pinned' } : {}),
      ...(get('guidance') ? { guidance: get('guidance') } : {}),
      ...(checked(form, `tools.${i}.pinned`) ? { pinned: true } : {}),
      ...(checked(form, `tools.${i}.answers_directly`) ? { answers_directly: true } : {}),
      ...(get('undo') ? { undo: get('undo') } : {}),
      ...(resources.length ? { resources } : {}),
    };
  }
  candidate.tools = tools;
  candidate.manifest = manifest;
  const order = lines(text(form, 'toolOrder') ?? '');
  if (order.length) candidate.toolOrder = order;
  else delete candidate.toolOrder;
}

function applyGuardrails(form: FormFields, candidate: Candidate) {
  candidate.thresholds = {
    minConfidence: numeric(trimmed(form, 'thresholds.minConfidence')),
    guardrailTimeoutMs: numeric(trimmed(form, 'thresholds.guardrailTimeoutMs')),
  };
  // The guardrail settings: the deny-list and card blocking as fields, the rest as JSON.
  const rawGuardrails = trimmed(form, 'guardrails');
  let guardrails: unknown = {};
  if (rawGuardrails) {
    // Bounded like the webhooks' bodies: past the depth limit it stays text, which the schema refuses.
    const json = parseUntrustedJson(rawGuardrails);
    guardrails = json.ok ? json.value : rawGuardrails;
  }
  if (guardrails && typeof guardrails === 'object' && !Array.isArray(guardrails)) {
    const g = guardrails as Record<string, unknown>;
    const content =
      g.content && typeof g.content === 'object' && !Array.isArray(g.content)
        ? (g.content as Record<string, unknown>)
        : {};
    g.content = {
      ...content,
      denyPhrases: lines(text(form, 'guardrails.content.denyPhrases') ?? ''),
      blockCardNumbers: checked(form, 'guardrails.content.blockCardNumbers'),
    };
  }
  candidate.guardrails = guardrails;
}

function applyHandoff(form: FormFields, candidate: Candidate) {
  const handoffTag = trimmed(form, 'handoff.tag');
  candidate.handoff = {
    ...(handoffTag ? { tag: handoffTag } : {}),
    reply: trimmed(form, 'handoff.reply'),
    silenceMinutes: numeric(trimmed(form, 'handoff.silenceMinutes')),
  };
}

export const SECTION_APPLIERS = {
  persona: applyPersona,
  catalogue: applyCatalogue,
  tools: applyTools,
  guardrails: applyGuardrails,
  handoff: applyHandoff,
} as const;
export type FormSection = keyof typeof SECTION_APPLIERS;

/**
 * One section's fields over the current config (each section of the setup is saved on its own:
 * what another section holds is kept as it is stored). Without a section, every section's.
 */
export function formToConfig(form: FormFields, current: TenantConfig, section?: FormSection): Record<string, unknown> {
  const candidate: Record<string, unknown> = structuredClone(current);
  for (const [name, apply] of Object.entries(SECTION_APPLIERS))
    if (!section || section === name) apply(form, candidate);
  // The tenant is the session's, whatever a form says (the caller sets it again).
  candidate.tenantId = current.tenantId;
  return candidate;
}

/** The guardrail settings shown in the JSON box: everything but the two fields that have their own controls. */
export function guardrailsJson(guardrails: unknown): string {
  if (!guardrails || typeof guardrails !== 'object') return typeof guardrails === 'string' ? guardrails : '{}';
  const g = { ...(guardrails as Record<string, unknown>) };
  if (g.content && typeof g.content === 'object') {
    const { denyPhrases: _d, blockCardNumbers: _b, ...rest } = g.content as Record<string, unknown>;
    g.content = rest;
  }
  return JSON.stringify(g, null, 2);
}
