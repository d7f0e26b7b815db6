import { fc } from '@fast-check/vitest';
import { wellFormedString, withLoneSurrogate } from './unicode.js';

/**
 * A button press as ManyChat posts it back (`dynamic_block_callback`): `{contact, callback, sig}`,
 * each field drawn valid or invalid (with its validity known), and a signature that is ours over
 * exactly these words, ours over someone else's (another contact, another tenant), random, or
 * absent. The signing itself is the test's (it holds SESSION_SECRET); this only says what to sign.
 */
export const ABSENT = Symbol('absent');
type Field = { value: unknown; ok: boolean };

function field(valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>, required = true): fc.Arbitrary<Field> {
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((value) => ({ value, ok: true })) },
    { weight: 1, arbitrary: invalid.map((value) => ({ value, ok: false })) },
    { weight: required ? 1 : 0, arbitrary: fc.constant({ value: ABSENT, ok: false }) },
  );
}

export const keyId = fc.stringMatching(/^[A-Za-z0-9_.:@-]{1,60}$/);
const nonce = field(
  wellFormedString(200, 1),
  fc.oneof(fc.constant(''), fc.constant('n'.repeat(201)), withLoneSurrogate(wellFormedString(20)), fc.constant(7)),
);
const contactId = field(
  fc.oneof(fc.stringMatching(/^\d{1,30}$/), fc.nat()),
  fc.constantFrom('', 'x1', -1, 1.5, null, '1'.repeat(31)),
);

const confirm = fc.record({
  kind: fc.constant({ value: 'confirm', ok: true }),
  pendingId: field(
    keyId,
    fc.oneof(fc.constantFrom('', 'a b', '../../x', 'x'.repeat(201), 'a/b', 'é', 42), withLoneSurrogate(keyId)),
  ),
  answer: field(fc.constantFrom('yes', 'no'), fc.constantFrom('YES', 'maybe', '', 1, true, null)),
  nonce,
});
const suggest = fc.record({
  kind: fc.constant({ value: 'suggest', ok: true }),
  text: field(
    wellFormedString(100, 1),
    fc.oneof(
      fc.constant(''),
      fc.constant('t'.repeat(101)),
      withLoneSurrogate(wellFormedString(20)),
      fc.constant(['hi']),
    ),
  ),
  nonce,
});
const otherKind = fc.record({
  kind: field(fc.constant('never-valid'), fc.constantFrom('Confirm', 'approve', '', 0, null, 'suggest ')).map((f) => ({
    ...f,
    ok: false,
  })),
  nonce,
});

export type SigChoice = 'ours' | 'other-contact' | 'other-tenant' | 'random' | 'absent' | 'too-long' | 'not-a-string';

export interface CallbackCase {
  contactId: Field;
  callback: Record<string, Field>;
  sig: SigChoice;
  withHeader: boolean;
  /** Extra top-level `text` (ignored for a press, but must not change the answer). */
  text: string | undefined;
}

export const callbackCase: fc.Arbitrary<CallbackCase> = fc.record({
  contactId,
  callback: fc.oneof(
    { weight: 3, arbitrary: confirm },
    { weight: 3, arbitrary: suggest },
    { weight: 1, arbitrary: otherKind },
  ),
  sig: fc.constantFrom<SigChoice>(
    'ours',
    'ours',
    'ours',
    'other-contact',
    'other-tenant',
    'random',
    'absent',
    'too-long',
    'not-a-string',
  ),
  withHeader: fc.boolean(),
  text: fc.option(wellFormedString(50), { nil: undefined }),
});

/** Whether every field passes the webhook's schema (and so the answer turns on the signature). */
export function callbackSchemaValid(c: CallbackCase): boolean {
  return (
    c.contactId.ok && Object.values(c.callback).every((f) => f.ok) && c.sig !== 'too-long' && c.sig !== 'not-a-string'
  );
}

/** The callback object as posted (absent fields left out). */
export function callbackObject(c: CallbackCase): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(c.callback)
      .filter(([, f]) => f.value !== ABSENT)
      .map(([k, f]) => [k, f.value]),
  );
}

/** A real button's payload with one thing changed; `resign`: signed again by us over the changed words. */
export interface ButtonTamper {
  change: 'nonce' | 'pendingId' | 'contact' | 'answer' | 'sig';
  value: string;
  resign: boolean;
}

export const buttonTamper: fc.Arbitrary<ButtonTamper> = fc.oneof(
  fc.record({ change: fc.constant('nonce' as const), value: wellFormedString(200, 1), resign: fc.boolean() }),
  fc.record({ change: fc.constant('pendingId' as const), value: keyId, resign: fc.boolean() }),
  fc.record({ change: fc.constant('contact' as const), value: fc.stringMatching(/^\d{1,30}$/), resign: fc.boolean() }),
  // Flipping the answer is only a forgery unsigned: signed by us it would be a genuine press.
  fc.record({ change: fc.constant('answer' as const), value: fc.constant('no'), resign: fc.constant(false) }),
  fc.record({
    change: fc.constant('sig' as const),
    value: fc.stringMatching(/^[0-9a-f]{64}$/),
    resign: fc.constant(false),
  }),
);
