import { fc } from '@fast-check/vitest';
import { loneSurrogate } from './unicode.js';

/**
 * The byte-level half of a fuzzed JSON body: how the value is written out (pretty, padded,
 * BOM-prefixed, truncated, with garbage or invalid UTF-8) and what that does to the expected
 * answer. The value-level half (which fields are wrong) is the caller's.
 */

/** Placed in a string value; the writer swaps it for raw bytes after JSON.stringify. */
export const RAW_MARK = '\u0001RAW\u0001';
/** Placed as a string value; the writer swaps the whole JSON string for a deep nest. */
export const DEEP_MARK = '\u0001DEEP\u0001';

export type RawOp =
  | { kind: 'none' | 'pretty' | 'spaces' | 'bom' }
  /** Invalid: JSON cut short, garbage around it, or a BOM where JSON allows no whitespace. */
  | { kind: 'truncate'; at: number }
  | { kind: 'garbage'; text: string; before: boolean }
  | { kind: 'bom-inside' }
  /** Valid: a lone surrogate or invalid UTF-8 *as raw bytes* inside a string decodes to U+FFFD. */
  | { kind: 'raw-surrogate'; char: string }
  | { kind: 'bad-utf8'; bytes: readonly number[] };

export const rawOp: fc.Arbitrary<RawOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom<RawOp>({ kind: 'none' }, { kind: 'pretty' }, { kind: 'spaces' }, { kind: 'bom' }),
  },
  { weight: 1, arbitrary: fc.nat().map((at): RawOp => ({ kind: 'truncate', at })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ text: fc.constantFrom(',', '}', ']', 'x', '{', '"', 'null', '\u0000'), before: fc.boolean() })
      .map((g): RawOp => ({ kind: 'garbage', ...g })),
  },
  { weight: 1, arbitrary: fc.constant<RawOp>({ kind: 'bom-inside' }) },
  { weight: 1, arbitrary: loneSurrogate.map((char): RawOp => ({ kind: 'raw-surrogate', char })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80])
      .map((bytes): RawOp => ({ kind: 'bad-utf8', bytes })),
  },
);

/** Whether the op makes an object body unparseable (so the answer is 400 whatever the value). */
export function rawOpBreaksJson(op: RawOp): boolean {
  // A strict prefix of a JSON object is never JSON; no garbage here is JSON whitespace; a BOM
  // is not JSON whitespace either (only a leading one is dropped, by the UTF-8 decoder).
  return op.kind === 'truncate' || op.kind === 'garbage' || op.kind === 'bom-inside';
}

const enc = new TextEncoder();

function serialize(value: unknown, op: RawOp, deepLevels: number): string {
  let text = op.kind === 'pretty' ? JSON.stringify(value, null, 2) : JSON.stringify(value);
  if (deepLevels > 0) text = text.replace(JSON.stringify(DEEP_MARK), '['.repeat(deepLevels) + ']'.repeat(deepLevels));
  switch (op.kind) {
    case 'spaces':
      return ` \n\t${text}\r\n `;
    case 'bom':
      return `\ufeff${text}`;
    case 'truncate':
      return text.slice(0, op.at % Math.max(1, text.length));
    case 'garbage':
      return op.before ? op.text + text : text + op.text;
    case 'bom-inside':
      return /^[{[]/.test(text) ? `${text[0]}\ufeff${text.slice(1)}` : text;
    default:
      return text;
  }
}

/** The marker's JSON spelling, as it appears in the serialized text. */
const RAW_MARK_JSON = JSON.stringify(RAW_MARK).slice(1, -1);

/** The body as sent, as bytes (so a raw lone surrogate or invalid UTF-8 reaches the Worker as such). */
export function writeBody(value: unknown, op: RawOp, deepLevels = 0): Uint8Array {
  const text = serialize(value, op, deepLevels);
  if (op.kind === 'raw-surrogate') return enc.encode(text.replace(RAW_MARK_JSON, op.char));
  const [head, ...rest] = text.split(RAW_MARK_JSON);
  if (op.kind !== 'bad-utf8' || rest.length === 0) return enc.encode(text.replaceAll(RAW_MARK_JSON, ''));
  const parts = [enc.encode(head!), new Uint8Array(op.bytes), enc.encode(rest.join(''))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Pads an object body (a `x_pad` key, multi-byte characters then ASCII) so that, written with
 * `op`, it is exactly `targetBytes` long; bodies that are not objects, or already longer, are left.
 */
export function padTo(value: unknown, op: RawOp, targetBytes: number, deepLevels = 0): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const base = writeBody({ ...value, x_pad: '' }, op, deepLevels).length;
  const need = targetBytes - base;
  if (need < 0) return value;
  const twoByte = Math.min(64, Math.floor(need / 2));
  return { ...value, x_pad: 'é'.repeat(twoByte) + 'a'.repeat(need - 2 * twoByte) };
}
