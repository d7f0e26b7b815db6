import type { LanguageModelV4ToolResultPart } from '@ai-sdk/provider';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';

/**
 * Tolerant reading of tool results. Tools may return the product's envelope
 * `{ content, effects, status }` or plain content; the SDK hands either to the model as a `json`
 * or `text` output (or `content` parts from a custom `toModelOutput`). JSON inside text is parsed.
 */

export type ResultStatus = 'ok' | 'staged' | 'denied' | 'error';
const STATUSES: readonly string[] = ['ok', 'staged', 'denied', 'error'];

export interface ReadableResult {
  toolCallId: string;
  toolName: string;
  /** Envelope status; plain content counts as 'ok', an SDK error output as 'error'. */
  status: ResultStatus;
  /** The content: a parsed JSON value or a string. */
  content: unknown;
  /** Every string and number in the content, space-joined, for phrase searches. */
  text: string;
}

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * JSON text becomes its value, also when wrapped in a marker (the product's tools wrap read data
 * as `<untrusted-data …>[…]</untrusted-data>`): the span from the first `[`/`{` to the last
 * `]`/`}` is tried. Anything else stays text.
 */
function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  const whole = /^[[{]/.test(trimmed) ? tryJson(trimmed) : { ok: false as const };
  if (whole.ok) return whole.value;
  const start = trimmed.search(/[[{]/);
  const end = Math.max(trimmed.lastIndexOf(']'), trimmed.lastIndexOf('}'));
  if (start < 0 || end <= start) return value;
  const inner = tryJson(trimmed.slice(start, end + 1));
  return inner.ok ? inner.value : value;
}

/** Accepts an envelope even without `effects`: being lenient here only changes wording, never control. */
function unwrapEnvelope(value: unknown, status: ResultStatus): { status: ResultStatus; content: unknown } {
  if (isRecord(value) && 'content' in value && typeof value.status === 'string' && STATUSES.includes(value.status)) {
    return { status: value.status as ResultStatus, content: parseMaybeJson(value.content) };
  }
  return { status, content: value };
}

function rawOutput(part: LanguageModelV4ToolResultPart): { status: ResultStatus; content: unknown } {
  const output = part.output;
  switch (output.type) {
    case 'text':
      return unwrapEnvelope(parseMaybeJson(output.value), 'ok');
    case 'json':
      return unwrapEnvelope(output.value, 'ok');
    case 'content': {
      const text = output.value.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      return unwrapEnvelope(parseMaybeJson(text), 'ok');
    }
    case 'execution-denied':
      return { status: 'denied', content: output.reason ?? '' };
    case 'error-text':
      return unwrapEnvelope(parseMaybeJson(output.value), 'error');
    case 'error-json':
      return unwrapEnvelope(output.value, 'error');
  }
}

export function readToolResult(part: LanguageModelV4ToolResultPart): ReadableResult {
  const { status, content } = rawOutput(part);
  // An SDK error output stays an error even if it happens to contain an 'ok' envelope.
  const finalStatus = part.output.type.startsWith('error') ? 'error' : status;
  return {
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    status: finalStatus,
    content,
    text: flattenText(content),
  };
}

function flattenText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(flattenText).filter(Boolean).join(' ');
  if (isRecord(value)) return Object.values(value).map(flattenText).filter(Boolean).join(' ');
  return '';
}

/** Depth-first, document order: every object inside a value (the value itself included). */
function objectsIn(value: unknown, out: Rec[] = []): Rec[] {
  if (Array.isArray(value)) for (const v of value) objectsIn(v, out);
  else if (isRecord(value)) {
    out.push(value);
    for (const v of Object.values(value)) objectsIn(v, out);
  }
  return out;
}

const MAX_NAMES = 10;
/**
 * "Allowed flows: a, b." / "allowed values are a or b" / "valid: a|b" → the list after the label.
 * The colon (or "are"/"is") is required so "not a valid choice for this field" names nothing.
 */
const ALLOWED_LIST =
  /\b(?:allowed|available|valid)\b(?:\s+(?:names?|values?|flows?|tags?|fields?|choices?|options?))?(?:\s*[:=]|\s+(?:are|is)\b\s*:?)\s*([^\n]+)/i;
/** "No FAQ entry matches." / "0 results" / "not found": a search that found nothing. */
const NOTHING_FOUND =
  /\b(?:no|zero|0)\b[^.]*\b(?:results?|match\w*|entr\w*|answers?|found)\b|\bnot found\b|\bnothing (?:found|matched)\b/i;

/**
 * The names a denial says are allowed: an `allowed…`/`choices`/`options` string array in the
 * content, else the list after "allowed:" (or "available"/"valid") in its text.
 */
export function allowedNames(result: ReadableResult): string[] {
  for (const obj of objectsIn(result.content)) {
    for (const [key, value] of Object.entries(obj)) {
      if (!/^(allowed\w*|choices|options|valid\w*)$/i.test(key) || !Array.isArray(value)) continue;
      const names = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
      if (names.length) return dedupe(names.map((n) => n.trim())).slice(0, MAX_NAMES);
    }
  }
  const match = ALLOWED_LIST.exec(result.text);
  if (!match?.[1]) return [];
  const names = match[1]
    .replace(/[.)\]]+\s*$/, '')
    .split(/\s*(?:,|;|\|)\s*|\s+(?:or|and)\s+/i)
    .map((n) => n.replace(/^[\s"'`([{]+|[\s"'`)\]}.]+$/g, ''))
    // "Allowed flows: none." names nothing.
    .filter((n) => n !== '' && n.length <= 64 && !/^\(?none\)?$/i.test(n));
  return dedupe(names).slice(0, MAX_NAMES);
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * The best FAQ answer in a search result: among entries carrying an `answer`, the highest
 * `score` (the first on ties or without scores, since search results come best first); else an
 * entry id of the tenant's FAQ; else an "A:"/"Answer:" line; else a tenant FAQ question quoted
 * verbatim; else the text itself unless it says nothing was found.
 */
export function bestFaqAnswer(result: ReadableResult, config: TenantConfig): string | undefined {
  const entries = objectsIn(result.content).filter((o) => typeof o.answer === 'string' && o.answer.trim() !== '');
  if (entries.length) {
    const score = (o: Rec) => (typeof o.score === 'number' ? o.score : Number.NEGATIVE_INFINITY);
    const best = entries.reduce((a, b) => (score(b) > score(a) ? b : a));
    return String(best.answer).trim();
  }
  const ids = new Set(objectsIn(result.content).flatMap((o) => (typeof o.id === 'string' ? [o.id] : [])));
  const byId = config.faq.find((e) => ids.has(e.id));
  if (byId) return byId.answer;
  // The tool's own words first; a tenant question quoted in the text is the weaker hint.
  const labelled = /(?:^|\n)\s*(?:A|Answer)\s*:\s*(.+)/i.exec(result.text);
  if (labelled?.[1]) return labelled[1].trim();
  const lowerText = result.text.toLowerCase();
  const quoted = config.faq.find((e) => lowerText.includes(e.question.toLowerCase()));
  if (quoted) return quoted.answer;
  const text = result.text.trim();
  if (text === '' || NOTHING_FOUND.test(text)) return undefined;
  return text.length > 600 ? `${text.slice(0, 597)}...` : text;
}

const MAX_FACTS = 6;

/** "key: value" facts from a contact lookup: top-level primitives and one level of nested objects. */
export function contactFacts(result: ReadableResult): string[] {
  const facts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (facts.length >= MAX_FACTS || /(^|_)id$|Id$/.test(key)) return;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      if (String(value).trim() !== '') facts.push(`${key.replace(/_/g, ' ')}: ${String(value)}`);
    } else if (Array.isArray(value) && value.every((v) => typeof v === 'string') && value.length) {
      facts.push(`${key.replace(/_/g, ' ')}: ${value.join(', ')}`);
    }
  };
  const content = result.content;
  if (typeof content === 'string') return content.trim() ? [content.trim()] : [];
  if (!isRecord(content)) return [];
  for (const [key, value] of Object.entries(content)) {
    if (isRecord(value)) for (const [k, v] of Object.entries(value)) add(k, v);
    else add(key, value);
  }
  return facts;
}
