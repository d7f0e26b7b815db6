import type { StagedAction } from '../core/staged-action.js';
import { contactDeclines, mentionedIn, RequestSupport, isAffirmative } from './action-support.js';
import type { GuardrailInput } from './guardrail.js';
import { untrustedResults } from './turn-provenance.js';
import { unConfuse, normalizeText } from './text-normalize.js';

/**
 * Where a write came from, when the contact's words do not ask for it. Two answers:
 * - the data the model read this turn names its resource (a tool result, the contact's fields or
 *   name, the conversation history): the data may have chosen it — refused (the prompt-injection
 *   guardrail escalates it);
 * - the contact's own message names it but negates it, asks to stop it or only asks about it:
 *   the contact said no — refused (escalates), as before;
 * - nothing names it, or the contact names it plainly with a verb the runtime does not read as a
 *   request ("take the interested tag off my profile", any language's verb missing from the
 *   lexicon): the runtime cannot tell whether the contact meant it — the contact is asked, with
 *   the signed Yes/No only they can press, instead of a handoff or a silent commit.
 * Encoded text in the data (base64, hex, %-escapes, \u-escapes) is decoded and read with it, and
 * look-alike letters folded, so an encoded instruction or resource name is seen; a turn whose
 * data carries decodable encoded text gets a tap for every ungated write.
 */
export interface DataText {
  source: string;
  text: string;
  /** The text carried encoded text that decoded to words. */
  encoded: boolean;
}

const BASE64 = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX = /\b(?:[0-9a-fA-F]{2}){8,}\b/g;
const PERCENT = /(?:%[0-9a-fA-F]{2}){3,}/g;
const UNICODE_ESCAPE = /(?:\\u[0-9a-fA-F]{4}){3,}/g;

function printable(decoded: string): boolean {
  if (decoded.length < 4 || decoded.includes('\uFFFD')) return false;
  const letters = decoded.match(/[\p{L}\p{N}\s.,:;!?'"()-]/gu)?.length ?? 0;
  return letters / decoded.length >= 0.9 && /\p{L}{3}/u.test(decoded);
}

function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

function fromBase64(run: string): string | null {
  try {
    const b64 = run.replace(/-/g, '+').replace(/_/g, '/');
    const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
    const binary = atob(padded);
    return utf8(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/** The encoded runs of `text` that decode to readable words, decoded. */
export function decodedParts(text: string): string[] {
  const out: string[] = [];
  const keep = (decoded: string | null) => {
    if (decoded && printable(decoded)) out.push(decoded);
  };
  for (const m of text.matchAll(BASE64)) keep(fromBase64(m[0]));
  for (const m of text.matchAll(HEX)) keep(utf8(Uint8Array.from(m[0].match(/../g)!, (h) => parseInt(h, 16))));
  for (const m of text.matchAll(PERCENT)) {
    try {
      keep(decodeURIComponent(m[0]));
    } catch {
      /* not valid UTF-8: not text */
    }
  }
  for (const m of text.matchAll(UNICODE_ESCAPE))
    keep(m[0].replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  return out;
}

/** The text as the checks read it: look-alike letters folded, encoded parts decoded and appended. */
export function readableData(source: string, raw: string): DataText {
  const decoded = decodedParts(raw);
  const text = [raw, ...decoded].map((t) => unConfuse(normalizeText(t))).join('\n');
  return { source, text, encoded: decoded.length > 0 };
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** Everything the model read this turn that is not the contact's own message: tool results, the contact's name and fields, the history. */
export function dataTexts(input: Pick<GuardrailInput, 'inbound' | 'steps' | 'history'>): DataText[] {
  const out: DataText[] = untrustedResults(input.steps).map((r) => readableData(`${r.toolName} result`, r.text));
  if (input.inbound.contact.name) out.push(readableData('the contact name', input.inbound.contact.name));
  for (const [name, value] of Object.entries(input.inbound.contact.fields))
    out.push(readableData(`field ${name}`, fieldText(value)));
  for (const entry of input.history ?? []) out.push(readableData(`history (${entry.role})`, entry.text));
  return out;
}

/** Which data names the action's resource (its name, keywords, description words, or the value it sets). */
export function dataNaming(
  action: StagedAction,
  input: Pick<GuardrailInput, 'config'>,
  data: readonly DataText[],
): DataText | null {
  return data.find((d) => mentionedIn(d.text, action, input.config)) ?? null;
}

/**
 * Whether the contact's own message names the action's resource only to say no to it (negated,
 * asked to stop or remove, or only asked about). Named plainly with words the runtime cannot read
 * as a request is not declined: the runtime is unsure, and the contact is asked.
 */
export function declinedByContact(action: StagedAction, input: Pick<GuardrailInput, 'inbound' | 'config'>): boolean {
  return contactDeclines(input.inbound.text ?? '', action, input.config);
}

export interface TapNeeded {
  actionId: string;
  why: string;
}

/** The contact's request as action-support reads it this turn (a short yes accepts the agent's last offer). */
export function requestSupport(input: Pick<GuardrailInput, 'inbound' | 'history' | 'config'>): RequestSupport {
  const own = input.inbound.text ?? '';
  const lastAgent =
    input.history && isAffirmative(own)
      ? [...input.history].reverse().find((h) => h.role === 'agent')?.text
      : undefined;
  return new RequestSupport({ text: own, ...(lastAgent ? { acceptedOffer: lastAgent } : {}) }, input.config);
}

/**
 * The ungated writes that need the contact's tap: not the contact's request by its words, and
 * named by nothing the model read (those are refused instead); or any ungated write of a turn
 * whose data carried encoded text.
 */
export function writesNeedingTap(
  input: Pick<GuardrailInput, 'inbound' | 'steps' | 'history' | 'config' | 'staged'>,
): TapNeeded[] {
  const ungated = input.staged.filter((a) => a.gate === 'none' && !a.tool.startsWith('system:'));
  if (!ungated.length) return [];
  const support = requestSupport(input);
  const data = dataTexts(input);
  const encoded = data.find((d) => d.encoded);
  const out: TapNeeded[] = [];
  for (const action of ungated) {
    const verdict = support.check(action);
    if (encoded) {
      out.push({
        actionId: action.id,
        why: `${encoded.source} carried encoded text; the contact confirms ${action.summary}`,
      });
      continue;
    }
    if (verdict.supported) continue;
    // The contact named it and said no, stop, or only asked about it: not "cannot tell" — refused.
    if (declinedByContact(action, input)) continue;
    // Named by the contact in words the runtime cannot read: asked, even where data names it too
    // ("Kan ik de brochure krijgen?" after an FAQ answer that mentions the brochure).
    if (!verdict.unreadable && dataNaming(action, input, data)) continue;
    out.push({
      actionId: action.id,
      why: `the contact's words do not clearly ask for ${action.summary} (${verdict.why}); the contact confirms it`,
    });
  }
  return out;
}
