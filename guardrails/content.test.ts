import { describe, expect, it } from 'vitest';
import { act, testConfig, turnInput, verdictOf } from '../test/support/guardrail-input.js';
import { findCardNumbers, luhnValid } from './card-numbers.js';
import { TURN_MATCHER_WORK } from '../core/tenant/pattern-set.js';
import { abText } from '../test/support/ab-text.js';
import { CACHE_LIMIT, compileContentRules, contentGuardrail, MAX_CHECKED_CHARS } from './content.js';

/**
 * A config as read from storage: 'load' skips the save-time checks, and the schema's defaults are
 * bypassed as a stored row would be, so patterns a save would refuse can be in it.
 */
function storedWith(piiPatterns: { name: string; pattern: string; caseInsensitive: boolean }[]) {
  const stored = testConfig();
  return { ...stored, guardrails: { ...stored.guardrails, content: { ...stored.guardrails.content, piiPatterns } } };
}

const judge = (spec: Parameters<typeof turnInput>[0]) => verdictOf(contentGuardrail, turnInput(spec));

describe('card numbers (Luhn + network prefix)', () => {
  it.each([
    '4111111111111111',
    '4111 1111 1111 1111',
    '4111-1111-1111-1111',
    '5500 0000 0000 0004',
    '3782 822463 10005',
    '6011111111111117',
    'card: 4012888888881881.',
  ])('finds %s', (text) => {
    expect(findCardNumbers(text)).toHaveLength(1);
  });

  it('finds a card followed by another number in the same digit run', () => {
    expect(findCardNumbers('ref 4111 1111 1111 1111 2')).toEqual(['…1111']);
  });

  it.each([
    ['a Luhn-invalid card-like number', '4111111111111112'],
    ['a Luhn-valid number with no card prefix', '1234567812345670'],
    ['a phone number', '+1 415 555 0123'],
    ['an order number', 'order #20261129001'],
    ['a 12-digit number', '411111111111'],
    ['a 20-digit run', '41111111111111111111'],
    ['a date and time', '2026-11-29 12:00'],
  ])('ignores %s', (_name, text) => {
    expect(findCardNumbers(text)).toEqual([]);
  });

  it('luhnValid', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
  });
});

describe('content guardrail', () => {
  it('passes an ordinary reply', async () => {
    expect((await judge({ reply: { text: 'We are open 7 to 21, Monday to Saturday.' } })).outcome).toBe('pass');
  });

  it('vetoes a card number in the reply, naming only its last four digits', async () => {
    const v = await judge({ reply: { text: 'Your card 4111 1111 1111 1111 is on file.' } });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('…1111');
    expect(v.reason).not.toContain('4111 1111');
  });

  it('vetoes a card number recorded in a field, and in a quick reply', async () => {
    expect((await judge({ staged: [act.field('email', '4111111111111111')] })).outcome).toBe('veto');
    expect((await judge({ reply: { text: 'ok', quickReplies: ['4111111111111111'] } })).outcome).toBe('veto');
  });

  it('card blocking can be turned off', async () => {
    const config = testConfig({}, { content: { blockCardNumbers: false } });
    expect((await judge({ config, reply: { text: '4111 1111 1111 1111' } })).outcome).toBe('pass');
  });

  it('vetoes forbidden PII patterns from config, case-insensitive by default', async () => {
    const config = testConfig(
      {},
      {
        content: {
          piiPatterns: [
            { name: 'IBAN', pattern: String.raw`\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}\b` },
            { name: 'SSN', pattern: String.raw`\b\d{3}-\d{2}-\d{4}\b` },
          ],
        },
      },
    );
    const iban = await judge({ config, reply: { text: 'Pay to de89 3704 0044 0532 0130 00 please' } });
    expect(iban.outcome).toBe('veto');
    expect(iban.reason).toContain('"IBAN"');
    expect(iban.reason).not.toContain('3704');
    expect((await judge({ config, staged: [act.field('email', 'ssn 123-45-6789')] })).outcome).toBe('veto');
    expect((await judge({ config, reply: { text: 'Class 1 starts at 10-15.' } })).outcome).toBe('pass');
  });

  it('runs a pattern that would freeze a backtracking engine on a 4,000-character reply, and still matches', async () => {
    // `\d*\d*\d*x` backtracks for over a minute in V8 on 800 digits; on RE2 it returns.
    const config = testConfig({}, { content: { piiPatterns: [{ name: 'code', pattern: String.raw`\d*\d*\d*x` }] } });
    expect((await judge({ config, reply: { text: '1'.repeat(3990) } })).outcome).toBe('pass');
    expect((await judge({ config, reply: { text: `${'1'.repeat(3000)}x` } })).outcome).toBe('veto');
  });

  it('a stored config past the save bounds (saved before them) is bounded per turn: not searched, vetoed fail closed', async () => {
    const heavy = { name: 'slow', pattern: '.{0,1000}.{0,1000}.{0,1000}x', caseInsensitive: true };
    const config = storedWith(Array.from({ length: 50 }, (_, i) => ({ ...heavy, name: `slow${i}` })));
    const started = performance.now();
    const v = await judge({ config, reply: { text: 'a'.repeat(1995) } });
    // Before the budget: 17 s of searching. What is left is compiling the stored pattern once.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain("matcher's budget");
  });

  it('a stored pattern that no longer compiles counts as a match (fail closed); the valid ones still run, named apart', async () => {
    // A pattern the save would refuse (a backreference) beside a valid one.
    const config = storedWith([
      { name: 'old', pattern: '(a)\\1', caseInsensitive: false },
      { name: 'email', pattern: String.raw`[\w.+-]+@[\w-]+\.[\w.]+`, caseInsensitive: true },
    ]);
    expect((await judge({ config, reply: { text: 'See you on Tuesday.' } })).reason).toBe(
      'the reply contains forbidden PII "old"',
    );
    expect((await judge({ config, reply: { text: 'Mail ana@x.es' } })).reason).toBe(
      'the reply contains forbidden PII "old"; the reply contains forbidden PII "email"',
    );
  });

  it('a pattern whose matcher would build a state per character (a[ab]{80}z) is stopped at the budget: the turn is vetoed, not slow', async () => {
    const config = testConfig({}, { content: { piiPatterns: [{ name: 'ab', pattern: 'a[ab]{80}z' }] } });
    const v = await judge({ config, reply: { text: abText(MAX_CHECKED_CHARS, 3) } });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toBe(
      `the reply was not checked against the PII patterns: the turn passed the matcher's budget (${TURN_MATCHER_WORK.toLocaleString('en')} steps of matcher work)`,
    );
    // The pattern still works where the budget reaches.
    expect((await judge({ config, reply: { text: `a${'b'.repeat(80)}z` } })).reason).toContain('forbidden PII "ab"');
  });

  it('the budget is the turn’s, shared by every target: each text alone passes, all of them together are vetoed', async () => {
    // Distinct settings (the deny phrase) are compiled apart: each check starts with an empty matcher cache.
    const config = (probe: string) =>
      testConfig({}, { content: { denyPhrases: [probe], piiPatterns: [{ name: 'ab', pattern: 'a[ab]{80}z' }] } });
    const texts = Array.from({ length: 12 }, (_, i) => abText(60, 50 + i));
    const v = await judge({
      config: config('shared budget all'),
      staged: texts.map((text) => act.field('email', text)),
    });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain("matcher's budget");
    for (const [i, text] of texts.entries())
      expect((await judge({ config: config(`shared budget ${i}`), staged: [act.field('email', text)] })).outcome).toBe(
        'pass',
      );
  });

  it('two tenants in one isolate, turns interleaved, in two languages: each is judged by its own patterns and its own turn budget', async () => {
    const iban = testConfig(
      { tenantId: 'tpiia' },
      { content: { piiPatterns: [{ name: 'IBAN', pattern: String.raw`\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}\b` }] } },
    );
    const explode = testConfig(
      { tenantId: 'tpiib' },
      { content: { piiPatterns: [{ name: 'ab', pattern: 'a[ab]{80}z' }] } },
    );
    const spanishIban = 'Transfiere a ES91 2100 0418 4502 0005 1332, gracias.';
    const germanPlain = 'Danke! Dein Kurs beginnt am Dienstag um 18:30.';
    for (let round = 0; round < 3; round++) {
      // The second tenant's turn spends its whole budget…
      expect(
        (await judge({ config: explode, reply: { text: abText(MAX_CHECKED_CHARS, 70 + round) } })).reason,
      ).toContain("matcher's budget");
      // …which is not the first tenant's: its turns still read every reply, and only its own pattern applies.
      expect((await judge({ config: iban, reply: { text: spanishIban } })).reason).toBe(
        'the reply contains forbidden PII "IBAN"',
      );
      expect((await judge({ config: iban, reply: { text: germanPlain } })).outcome).toBe('pass');
      expect((await judge({ config: explode, reply: { text: spanishIban } })).outcome).toBe('pass');
    }
  });

  it('vetoes deny-listed phrases as whole words, whatever the case, spacing or punctuation', async () => {
    const config = testConfig({}, { content: { denyPhrases: ['free money', 'guaranteed weight loss', 'competitor'] } });
    for (const text of [
      'Get FREE money now',
      'free-money!',
      'free\u200B money',
      'Guaranteed   weight loss in a week',
      'unlike our competitor',
      'Gu\u0430rant\u200beed weight l\u03bfss',
      'fr\u0435\u0435 money',
    ]) {
      const v = await judge({ config, reply: { text } });
      expect(v.outcome, text).toBe('veto');
      expect(v.reason).toContain('denied phrase');
    }
    for (const text of [
      'A carefree moneybox',
      'competitors',
      'free parking, and money back if unhappy',
      '\u0444\u0440\u0435\u0435 \u043c\u043e\u043d\u0435\u0439',
    ]) {
      expect((await judge({ config, reply: { text } })).outcome, text).toBe('pass');
    }
  });

  it('deny phrases also apply to quick replies but not to stored field values', async () => {
    const config = testConfig({}, { content: { denyPhrases: ['yoga'] } });
    expect((await judge({ config, reply: { text: 'ok', quickReplies: ['Yoga'] } })).outcome).toBe('veto');
    expect(
      (await judge({ config, reply: { text: 'ok' }, staged: [act.field('preferred_class', 'yoga')] })).outcome,
    ).toBe('pass');
  });

  it('fails closed on text too long to check', async () => {
    const v = await judge({ reply: { text: 'a'.repeat(MAX_CHECKED_CHARS + 1) } });
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('not checked');
  });
});

describe('content guardrail: what is read, and the exact limits (issue 22)', () => {
  const sendContent = (text: string) => ({
    ...act.tag('x'),
    tool: 'send_message',
    kind: 'send_content' as const,
    args: { text },
    idempotent: false,
    summary: `send "${text}"`,
  });

  it('a staged send_content is read like the reply: deny phrases and card numbers', async () => {
    // Rule: what the contact would read is checked wherever it comes from, not only the reply.
    const config = testConfig({}, { content: { denyPhrases: ['free money'] } });
    const denied = await judge({ config, reply: { text: 'ok' }, staged: [sendContent('Get FREE money')] });
    expect(denied.outcome).toBe('veto');
    expect(denied.reason).toContain('denied phrase');
    expect((await judge({ reply: { text: 'ok' }, staged: [sendContent('card 4111 1111 1111 1111')] })).outcome).toBe(
      'veto',
    );
  });

  it('other staged actions, a field that is not text, and no reply at all: nothing to check, and no failure', async () => {
    expect((await judge({ reply: { text: 'ok' }, staged: [act.tag('vip'), act.untag('old')] })).outcome).toBe('pass');
    expect(
      (await judge({ reply: { text: 'ok' }, staged: [act.field('age', 41111111), act.field('member', true)] })).outcome,
    ).toBe('pass');
    expect((await judge({ reply: null, staged: [act.tag('vip')] })).outcome).toBe('pass');
  });

  it('text of exactly MAX_CHECKED_CHARS is still checked (and passes when clean)', async () => {
    expect((await judge({ reply: { text: 'a'.repeat(MAX_CHECKED_CHARS) } })).outcome).toBe('pass');
  });

  it('a deny phrase of punctuation only is ignored (it must not match every reply); trailing punctuation in a phrase does not matter', async () => {
    const config = testConfig({}, { content: { denyPhrases: ['!!!', 'free money!'] } });
    expect((await judge({ config, reply: { text: 'We are open today.' } })).outcome).toBe('pass');
    expect((await judge({ config, reply: { text: 'Get free money' } })).outcome).toBe('veto');
  });

  it('the reason names where the problem is', async () => {
    expect((await judge({ reply: { text: '4111 1111 1111 1111' } })).reason).toMatch(
      /^the reply contains a payment card number/,
    );
    expect((await judge({ reply: { text: 'ok', quickReplies: ['4111111111111111'] } })).reason).toMatch(
      /^a quick reply contains a payment card number/,
    );
  });
});

describe('content guardrail: the whole reason, and the compiled-rules cache (issue 22)', () => {
  it("the reason lists every problem, in order, each naming where it is, with every card's last four digits", async () => {
    // Rule: the veto reason is what a human reads on the dashboard; it names each rule broken and
    // where, and never the matched PII itself.
    const config = testConfig({}, { content: { denyPhrases: ['free money'] } });
    const v = await judge({
      config,
      reply: { text: 'Get free money now' },
      staged: [act.field('email', '4111111111111111 or 5500 0000 0000 0004')],
    });
    expect(v.reason).toBe(
      'the reply contains the denied phrase "free money"; set field "email" contains a payment card number (…1111, …0004)',
    );
  });

  const settings = (phrase: string) => ({ denyPhrases: [phrase], piiPatterns: [], blockCardNumbers: true });

  it('the same settings are compiled once and then served from the cache, other settings alongside', () => {
    const a = compileContentRules(settings('cache probe a'));
    expect(compileContentRules(settings('cache probe a'))).toBe(a);
    compileContentRules(settings('cache probe b'));
    expect(compileContentRules(settings('cache probe a'))).toBe(a);
  });

  it(`the cache keeps the ${CACHE_LIMIT} most recently compiled settings and drops the oldest (memory stays bounded)`, () => {
    const kept = compileContentRules(settings('bound probe kept'));
    for (let i = 1; i < CACHE_LIMIT; i++) compileContentRules(settings(`bound probe ${i}`));
    // CACHE_LIMIT entries since `kept` (itself included): still there.
    expect(compileContentRules(settings('bound probe kept'))).toBe(kept);
    compileContentRules(settings(`bound probe ${CACHE_LIMIT}`));
    // One more: `kept` is the oldest and was dropped, so it is compiled afresh.
    const again = compileContentRules(settings('bound probe kept'));
    expect(again).not.toBe(kept);
    expect(again.deny!.find('a bound probe kept here')).toBe(kept.deny!.find('a bound probe kept here'));
    expect(again.deny!.find('a bound probe kept here')).toBe('bound probe kept');
  });
});
