import { fc } from '@fast-check/vitest';
import { keyId } from './callback-body.js';
import { wellFormedJson, wellFormedString, withLoneSurrogate } from './unicode.js';

/**
 * Bodies QStash brings back signed — a delivery `{tenantId, turnId}`, a finish-turn job
 * `{turnId, inbound}`, an inbound retry `{inbound}` — fuzzed field by field, each field drawn
 * valid, invalid, or "edge" (valid for the schema but odd: a contact id too long for a key, an
 * unreadable time). Signed correctly (the property is about what gets past the signature), or
 * now and then signed wrong. Expected answers are sets: an edge field may be run or refused,
 * but never answered 5xx.
 */
export const SIGNED_KINDS = ['deliver', 'finish', 'retry'] as const;
export type SignedKind = (typeof SIGNED_KINDS)[number];

/** valid: must pass the schema; edge: may pass or be refused (4xx); invalid: must be refused. */
type Grade = 'valid' | 'edge' | 'invalid';
export interface Graded {
  value: unknown;
  grade: Grade;
}
export const ABSENT_FIELD = Symbol('absent');

/** A field's values by grade; `optional`: absent is valid (else absent is invalid). */
interface FieldValues {
  valid: fc.Arbitrary<unknown>;
  edge?: fc.Arbitrary<unknown>;
  invalid: fc.Arbitrary<unknown>;
  optional?: boolean;
}

/** Which tenant a job names: the fuzzed one, a well-formed id nobody has, or a malformed id. */
export type TenantChoice = 'ours' | 'unknown' | 'malformed';
const tenantChoice = fc.constantFrom<TenantChoice>('ours', 'ours', 'ours', 'ours', 'unknown', 'malformed');
const malformedTenant = fc.oneof(
  fc.constantFrom('', '../x', 'A', '-a', 'a_b', 'a'.repeat(64), 'a:b', 7),
  withLoneSurrogate(fc.constant('t')),
);
const badKeyId = fc.oneof(
  fc.constantFrom('', 'a b', 'a/b', '../../x', 't'.repeat(201), 'é', 1, null),
  withLoneSurrogate(keyId),
);
const notAString = fc.constantFrom(1, true, null, {}, ['x']);
const isoTime = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const TURN_ID: FieldValues = { valid: keyId, invalid: badKeyId };
const INBOUND: Record<string, FieldValues> = {
  channel: {
    valid: fc.constant('manychat'),
    edge: fc.constant('messenger'),
    invalid: fc.constantFrom('sms', '', 'ManyChat', 1),
  },
  contactId: {
    valid: fc.stringMatching(/^\d{1,20}$/),
    edge: fc.oneof(
      fc.constantFrom('', '../x', 'a b', '%', '9'.repeat(301), '%'.repeat(101), 'é'.repeat(60)),
      wellFormedString(40),
    ),
    invalid: fc.oneof(notAString, withLoneSurrogate(fc.constant('1'))),
  },
  messageKey: {
    valid: wellFormedString(200, 1),
    edge: fc.oneof(
      fc.constant(''),
      fc.integer({ min: 1000, max: 20_000 }).map((n) => 'k'.repeat(n)),
    ),
    invalid: fc.oneof(notAString, withLoneSurrogate(wellFormedString(10))),
  },
  text: {
    valid: wellFormedString(300, 1),
    edge: fc.constantFrom('', '   '),
    invalid: fc.oneof(notAString, withLoneSurrogate(wellFormedString(10))),
    optional: true,
  },
  contact: {
    valid: fc.record({
      name: fc.option(wellFormedString(60), { nil: undefined }),
      fields: fc.dictionary(wellFormedString(10), wellFormedJson(2), { maxKeys: 3 }),
      lastInteraction: fc.option(isoTime, { nil: undefined }),
    }),
    edge: fc.record({
      fields: fc.constant({}),
      lastInteraction: fc.oneof(fc.constant(''), wellFormedString(30), fc.constant('9999-99-99T99:99:99Z')),
    }),
    invalid: fc.constantFrom({}, { fields: [] }, { fields: 'x' }, { name: 1, fields: {} }, null, 'contact'),
  },
  receivedAt: {
    valid: isoTime,
    edge: fc.oneof(fc.constant(''), fc.constant('yesterday'), wellFormedString(20)),
    invalid: notAString,
  },
  callback: {
    valid: fc.constant(ABSENT_FIELD),
    edge: fc.record({
      kind: fc.constant('confirm'),
      pendingId: fc.oneof(keyId, fc.constant('../x')),
      answer: fc.constantFrom('yes', 'no'),
      nonce: wellFormedString(20),
    }),
    invalid: fc.constantFrom({ kind: 'approve' }, 'yes', 1),
    optional: true,
  },
};

/** Every field valid, then at most one of them (turn id or an inbound field) made edge or invalid. */
const fieldsWithOneSpoiled = fc
  .tuple(
    fc.record({ turnId: TURN_ID.valid, ...Object.fromEntries(Object.entries(INBOUND).map(([k, f]) => [k, f.valid])) }),
    fc.option(fc.constantFrom('turnId', ...Object.keys(INBOUND)), { freq: 2, nil: null }),
    fc.constantFrom<Exclude<Grade, 'valid'>>('edge', 'invalid', 'invalid'),
    fc.nat(),
  )
  .chain(([values, spoiled, grade, n]) => {
    const all: Record<string, Graded> = Object.fromEntries(
      Object.entries(values).map(([k, value]) => [k, { value, grade: 'valid' as Grade }]),
    );
    if (spoiled === null) return fc.constant(all);
    const spec = spoiled === 'turnId' ? TURN_ID : INBOUND[spoiled]!;
    const absentInvalid = !spec.optional && n % 5 === 0;
    if (absentInvalid) return fc.constant({ ...all, [spoiled]: { value: ABSENT_FIELD, grade: 'invalid' as Grade } });
    const arb = grade === 'edge' && spec.edge ? spec.edge : spec.invalid;
    const g: Grade = grade === 'edge' && spec.edge ? 'edge' : 'invalid';
    return arb.map((value) => ({ ...all, [spoiled]: { value, grade: g } }));
  });

export type SignatureChoice = 'good' | 'other-path' | 'altered-body' | 'expired' | 'missing';

export interface SignedCase {
  kind: SignedKind;
  tenant: TenantChoice;
  malformedTenant: unknown;
  /** `turnId` and the inbound fields, each with its grade. */
  fields: Record<string, Graded>;
  /** Not a job at all: replaces the body (always invalid). */
  raw: string | null;
  signature: SignatureChoice;
}

export const signedCase: fc.Arbitrary<SignedCase> = fc.record({
  kind: fc.constantFrom(...SIGNED_KINDS),
  tenant: tenantChoice,
  malformedTenant,
  fields: fieldsWithOneSpoiled,
  raw: fc.oneof(
    { weight: 12, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '[]',
        'null',
        '{',
        '{"turnId":"\\udc00"}',
        `${'['.repeat(70)}${']'.repeat(70)}`,
        '{"tenantId":"a","turnId":"b",}',
      ),
    },
  ),
  signature: fc.oneof(
    { weight: 12, arbitrary: fc.constant<SignatureChoice>('good') },
    { weight: 4, arbitrary: fc.constantFrom<SignatureChoice>('other-path', 'altered-body', 'expired', 'missing') },
  ),
});

const put = (into: Record<string, unknown>, key: string, g: Graded) => {
  if (g.value !== ABSENT_FIELD) into[key] = g.value;
};

/** The job's JSON value, with the tenant id filled in. */
export function jobBody(c: SignedCase, tenants: { ours: string; unknown: string }): unknown {
  const tenantId = c.tenant === 'malformed' ? c.malformedTenant : tenants[c.tenant];
  if (c.kind === 'deliver') {
    const body: Record<string, unknown> = { tenantId };
    put(body, 'turnId', c.fields.turnId!);
    return body;
  }
  const inboundValue: Record<string, unknown> = { tenantId };
  for (const k of Object.keys(INBOUND)) put(inboundValue, k, c.fields[k]!);
  if (c.kind === 'retry') return { inbound: inboundValue };
  const body: Record<string, unknown> = { inbound: inboundValue };
  put(body, 'turnId', c.fields.turnId!);
  return body;
}

/** The grade of the whole body: invalid if any field it carries is, edge if any is, else valid. */
export function bodyGrade(c: SignedCase): Grade {
  if (c.raw !== null || c.tenant === 'malformed') return 'invalid';
  const carried = Object.entries(c.fields).filter(([k]) =>
    k === 'turnId' ? c.kind !== 'retry' : c.kind !== 'deliver',
  );
  const grades = carried.map(([, g]) => g.grade);
  return grades.includes('invalid') ? 'invalid' : grades.includes('edge') ? 'edge' : 'valid';
}
