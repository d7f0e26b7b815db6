import { describe, expect, it } from 'vitest';
import { turnInput, verdictOf } from '../test/support/guardrail-input.js';
import { MAX_CAPTION_CHARS, MAX_QUICK_REPLIES, MAX_TEXT_CHARS, replySchemaGuardrail } from './reply-schema.js';

const judge = (rawReply: unknown) => verdictOf(replySchemaGuardrail, { ...turnInput(), rawReply });
const ok = { text: 'Hello!', escalate: false, confidence: 0.9, reason: 'r' };

describe('reply-schema', () => {
  it('passes a well-formed reply at the channel limits', async () => {
    expect((await judge(ok)).outcome).toBe('pass');
    expect((await judge({ ...ok, text: 'x'.repeat(MAX_TEXT_CHARS) })).outcome).toBe('pass');
    const captions = Array.from({ length: MAX_QUICK_REPLIES }, (_, i) => `Option ${i}`.padEnd(MAX_CAPTION_CHARS, '.'));
    expect((await judge({ ...ok, quickReplies: captions })).outcome).toBe('pass');
    expect((await judge({ ...ok, text: 'line one\nline two\ttabbed' })).outcome).toBe('pass');
    // Invisible characters beside visible text are harmless (emoji sequences use joiners).
    expect((await judge({ ...ok, text: 'Hi \u200b👩\u200d💻', quickReplies: ['\u200bYes'] })).outcome).toBe('pass');
  });

  it('escalates a missing reply (the model did not end its turn)', async () => {
    expect(await judge(null)).toEqual({ outcome: 'escalate', reason: 'the model gave no reply' });
    expect((await judge(undefined)).outcome).toBe('escalate');
  });

  it.each([
    ['a reply without its typed fields', { text: 'hi' }, 'schema'],
    ['escalate given as a string', { ...ok, escalate: 'true' }, 'schema'],
    ['confidence out of range', { ...ok, confidence: 1.5 }, 'schema'],
    ['empty text', { ...ok, text: '   ' }, 'empty'],
    ['text over 2000 characters', { ...ok, text: 'x'.repeat(MAX_TEXT_CHARS + 1) }, '2001 characters'],
    ['12 quick replies', { ...ok, quickReplies: Array.from({ length: 12 }, (_, i) => `q${i}`) }, 'quickReplies: '],
    ['a 21-character caption', { ...ok, quickReplies: ['x'.repeat(21)] }, 'quickReplies.0: '],
    ['a blank caption', { ...ok, quickReplies: ['  '] }, 'blank'],
    ['text of zero-width, joiner and no-break spaces only', { ...ok, text: '\u200b \u200b\u2060\u00a0' }, 'empty'],
    ['text of a BOM, a bidi mark and a Hangul filler only', { ...ok, text: '\ufeff\u200e\u3164' }, 'empty'],
    ['a caption of zero-width spaces', { ...ok, quickReplies: ['\u200b\u200b'] }, 'blank'],
    ['duplicate captions', { ...ok, quickReplies: ['Yes', 'yes '] }, 'twice'],
    ['control characters', { ...ok, text: 'hi\u0000there' }, 'control characters'],
  ])('vetoes %s', async (_name, raw, why) => {
    const v = await judge(raw);
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain(why);
  });
});

describe('reply-schema: what else decides (issue 22)', () => {
  it('a well-formed reply the loop set aside is no reply: escalate', async () => {
    // Rule: the turn must not pass on a reply that came with a call needing another step.
    const input = turnInput({ reply: { text: 'Hello' } });
    const v = await verdictOf(replySchemaGuardrail, { ...input, reply: null });
    expect(v).toEqual({ outcome: 'escalate', reason: 'the model ended without a reply the turn could use' });
  });

  it('the schema problem names each field by its path', async () => {
    const v = await judge({ ...ok, text: 5, quickReplies: ['fine', 7] });
    expect(v.reason).toMatch(/^the reply does not match its schema: text: [^;]+; quickReplies\.1: [^;]+$/);
  });

  it('captions that differ only in case are duplicates; ones that differ in letters are not', async () => {
    expect((await judge({ ...ok, quickReplies: ['Straße', 'STRASSE'] })).outcome).toBe('pass');
    expect((await judge({ ...ok, quickReplies: ['Straße', 'STRAßE'] })).outcome).toBe('veto');
  });
});
