import { fc } from '@fast-check/vitest';
import { DEEP_MARK, padTo, RAW_MARK, rawOp, rawOpBreaksJson, writeBody, type RawOp } from './raw-body.js';
import {
  blankString,
  edgeString,
  messageText,
  wellFormedJson,
  wellFormedString,
  withLoneSurrogate,
} from './unicode.js';

/**
 * A fuzzed ManyChat webhook body with its expected answer, worked out independently of the
 * product: a valid body (wrapped or the bare contact) changed by up to three field mutations,
 * each of which keeps it valid or makes one field invalid (the last write to a field wins), then
 * written out by a byte-level op. Expected: 413 over the body limit, else 400 when any field is
 * invalid or the JSON is broken, else 200.
 */
export const MANYCHAT_LIMIT = 64 * 1024;
export const MAX_DEPTH = 64;

type Json = Record<string, unknown>;
interface Draft {
  form: 'wrapped' | 'bare';
  body: unknown;
  /** Field path → why it is invalid (null: valid again). */
  problems: Map<string, string | null>;
  deepLevels: number;
}

export interface InboundCase {
  bytes: Uint8Array;
  expected: 200 | 400 | 413;
  /** The invalid fields, the byte op, the size: what the case is about, for a failure message. */
  why: string;
  label: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const contactOf = (d: Draft): Json | null =>
  d.form === 'bare'
    ? isObject(d.body)
      ? d.body
      : null
    : isObject(d.body) && isObject(d.body.contact)
      ? d.body.contact
      : null;
const textKey = (d: Draft) => (d.form === 'bare' ? 'last_input_text' : 'text');

function mark(d: Draft, path: string, problem: string | null): void {
  for (const key of [...d.problems.keys()]) if (key === path || key.startsWith(`${path}.`)) d.problems.delete(key);
  d.problems.set(path, problem);
}

/** Sets `field` on the contact (or, for wrapper fields, on the body); no-op if that is not an object. */
function setOn(d: Draft, where: 'contact' | 'wrapper', field: string, value: unknown, problem: string | null): void {
  const target = where === 'contact' ? contactOf(d) : d.form === 'wrapped' && isObject(d.body) ? d.body : null;
  if (!target) return;
  target[field] = value;
  mark(d, where === 'contact' ? `contact.${field}` : field, problem);
}

type Mutation = (d: Draft) => void;

const contactIdBad = fc.oneof(
  fc.constantFrom('', 'abc', '12a', '-1', '1.5', ' 1', '1 ', '١٢٣', null, true, -1, 1.5, 1e21, {}, [], '0x10'),
  fc.stringMatching(/^\d{31,40}$/),
);
const contactIdGood = fc.oneof(fc.stringMatching(/^\d{1,30}$/), fc.nat({ max: Number.MAX_SAFE_INTEGER }));
const notAString = fc.constantFrom(0, 1, true, false, {}, [], ['x'], { text: 'hi' });
const tooLong = (min: number) => fc.integer({ min, max: min + 200 }).map((n) => 'x'.repeat(n));
const containerPath = fc.array(fc.constantFrom('a', 'b', '0'), { minLength: 0, maxLength: 3 });

function nest(levels: number, leaf: unknown, alternate: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = alternate && i % 2 ? { k: v } : [v];
  return v;
}

/** Nesting depth of a JS value (bounded inputs only: the deep ones are written as a marker). */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (isObject(v)) return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // Lone surrogates (escaped as JSON writes them), anywhere: a 400 naming where.
  fc.tuple(fc.constantFrom('text', 'message_key'), withLoneSurrogate(wellFormedString(40))).map(
    ([f, s]): Mutation =>
      (d) =>
        setOn(
          d,
          d.form === 'bare' && f === 'text' ? 'contact' : 'wrapper',
          f === 'text' ? textKey(d) : f,
          s,
          'lone surrogate',
        ),
  ),
  fc
    .tuple(
      fc.constantFrom('first_name', 'last_name', 'name', 'last_interaction', 'page_id', 'x_extra'),
      withLoneSurrogate(wellFormedString(20)),
    )
    .map(
      ([f, s]): Mutation =>
        (d) =>
          setOn(d, 'contact', f, s, 'lone surrogate'),
    ),
  fc.tuple(withLoneSurrogate(wellFormedString(10)), wellFormedJson(1), fc.boolean()).map(
    ([s, v, asKey]): Mutation =>
      (d) =>
        setOn(d, 'contact', 'custom_fields', asKey ? { [s]: v } : { f: [v, s] }, 'lone surrogate'),
  ),
  // Wrong ids, types and lengths.
  contactIdBad.map(
    (v): Mutation =>
      (d) =>
        setOn(d, 'contact', 'id', v, 'contact id'),
  ),
  contactIdGood.map(
    (v): Mutation =>
      (d) =>
        setOn(d, 'contact', 'id', v, null),
  ),
  notAString.map(
    (v): Mutation =>
      (d) =>
        setOn(d, d.form === 'bare' ? 'contact' : 'wrapper', textKey(d), v, 'text type'),
  ),
  // No text (a photo, sticker or voice note ManyChat passes nothing for): the polite no-text reply, a 200 (issue 30);
  // a wrapper's `"text": null` is still a type error (the template never sends it).
  fc.constant<Mutation>((d) =>
    setOn(d, d.form === 'bare' ? 'contact' : 'wrapper', textKey(d), null, d.form === 'bare' ? null : 'text null'),
  ),
  tooLong(4001).map(
    (v): Mutation =>
      (d) =>
        setOn(d, d.form === 'bare' ? 'contact' : 'wrapper', textKey(d), v, 'text length'),
  ),
  // Blank text is no text: the polite reply, a 200.
  blankString.map(
    (v): Mutation =>
      (d) =>
        setOn(d, d.form === 'bare' ? 'contact' : 'wrapper', textKey(d), v, null),
  ),
  fc.oneof(fc.constant(''), tooLong(201), notAString, fc.constant(null)).map(
    (v): Mutation =>
      (d) =>
        setOn(d, 'wrapper', 'message_key', v, 'message_key'),
  ),
  fc.tuple(fc.constantFrom('first_name', 'last_name', 'name'), tooLong(201)).map(
    ([f, v]): Mutation =>
      (d) =>
        setOn(d, 'contact', f, v, `${f} length`),
  ),
  tooLong(65).map(
    (v): Mutation =>
      (d) =>
        setOn(d, 'contact', 'last_interaction', v, 'last_interaction length'),
  ),
  fc.constantFrom('x', 1, true, ['a'], [{}]).map(
    (v): Mutation =>
      (d) =>
        setOn(d, 'contact', 'custom_fields', v, 'custom_fields type'),
  ),
  fc.constantFrom('4242', 4242, null, [], ['4242'], true).map((v): Mutation => (d) => {
    if (d.form !== 'wrapped' || !isObject(d.body)) return;
    d.body.contact = v;
    mark(d, 'contact', 'contact type');
  }),
  // Nesting: around the limit (exactly counted), or far past it (as a marker the writer expands).
  fc
    .tuple(fc.integer({ min: 50, max: 70 }), fc.boolean(), wellFormedJson(0))
    .map(([total, alternate, leaf]): Mutation => (d) => {
      const base = d.form === 'wrapped' ? 3 : 2; // body, (contact,) custom_fields
      setOn(d, 'contact', 'custom_fields', { deep: nest(Math.max(0, total - base), leaf, alternate) }, null);
      if (contactOf(d) && depthOf(d.body) > MAX_DEPTH) mark(d, 'contact.custom_fields', 'nesting depth');
    }),
  fc.integer({ min: 1_000, max: 20_000 }).map((levels): Mutation => (d) => {
    setOn(d, 'contact', 'custom_fields', { deep: DEEP_MARK }, 'nesting depth');
    if (contactOf(d)) d.deepLevels = levels;
  }),
  // Valid changes: extra fields, unusual but well-formed values, nulls where nullish is allowed.
  fc
    .tuple(
      fc.constantFrom('first_name', 'last_name', 'name', 'last_interaction'),
      fc.oneof(wellFormedString(64), edgeString, fc.constant(null)),
    )
    .map(
      ([f, v]): Mutation =>
        (d) =>
          setOn(d, 'contact', f, v, null),
    ),
  fc.dictionary(wellFormedString(12), wellFormedJson(3), { maxKeys: 4 }).map(
    (v): Mutation =>
      (d) =>
        setOn(d, 'contact', 'custom_fields', v, null),
  ),
  fc.tuple(containerPath, wellFormedJson(2)).map(
    ([path, v]): Mutation =>
      (d) =>
        setOn(d, 'wrapper', `x_${path.join('')}`, v, null),
  ),
  messageText(300).map(
    (v): Mutation =>
      (d) =>
        setOn(d, d.form === 'bare' ? 'contact' : 'wrapper', textKey(d), `${v}${RAW_MARK}`, null),
  ),
);

const draft: fc.Arbitrary<Draft> = fc
  .record({
    form: fc.constantFrom<Draft['form']>('wrapped', 'wrapped', 'bare'),
    id: contactIdGood,
    text: messageText(300),
    messageKey: fc.option(wellFormedString(200, 1), { nil: undefined }),
    firstName: fc.option(fc.oneof(wellFormedString(200), fc.constant(null)), { nil: undefined }),
    lastInteraction: fc.option(
      fc
        .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
        .map((x) => x.toISOString()),
      { nil: undefined },
    ),
    fields: fc.option(fc.dictionary(wellFormedString(12), wellFormedJson(2), { maxKeys: 3 }), { nil: undefined }),
  })
  .map(({ form, id, text, messageKey, firstName, lastInteraction, fields }) => {
    const contact: Json = {
      id,
      ...(firstName !== undefined ? { first_name: firstName } : {}),
      ...(lastInteraction ? { last_interaction: lastInteraction } : {}),
      ...(fields ? { custom_fields: fields } : {}),
    };
    const body =
      form === 'bare'
        ? { ...contact, last_input_text: text }
        : { contact, text, ...(messageKey ? { message_key: messageKey } : {}) };
    return { form, body, problems: new Map(), deepLevels: 0 };
  });

/** A body at (or a few bytes around) the limit, or any size. */
const sizeTarget = fc.oneof(
  { weight: 5, arbitrary: fc.constant<number | null>(null) },
  { weight: 1, arbitrary: fc.integer({ min: -3, max: 3 }).map((delta) => MANYCHAT_LIMIT + delta) },
);

export const inboundCase: fc.Arbitrary<InboundCase> = fc
  .tuple(draft, fc.array(mutation, { maxLength: 3 }), rawOp, sizeTarget)
  .map(([d, mutations, op, size]) => {
    for (const m of mutations) m(d);
    const body = size === null ? d.body : padTo(d.body, op, size, d.deepLevels);
    const bytes = writeBody(body, op, d.deepLevels);
    const problems = [...d.problems.values()].filter((p): p is string => p !== null);
    if (!isObject(body)) problems.push('body type');
    if (rawOpBreaksJson(op)) problems.push(`json ${op.kind}`);
    const expected = bytes.length > MANYCHAT_LIMIT ? 413 : problems.length ? 400 : 200;
    const label =
      expected === 413
        ? 'too-large'
        : (problems[0]?.replace(/ /g, '-') ?? (size !== null ? 'valid-at-limit' : `valid-${op.kind}`));
    return {
      bytes,
      expected,
      label,
      why: `${d.form} [${problems.join(', ') || 'valid'}] op=${describeOp(op)} bytes=${bytes.length}`,
    };
  });

function describeOp(op: RawOp): string {
  return op.kind === 'bad-utf8' ? `bad-utf8(${op.bytes.map((b) => b.toString(16)).join(' ')})` : op.kind;
}
