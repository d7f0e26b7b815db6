import { describe, expect, it } from 'vitest';
import { act, testConfig, turnInput, verdictOf } from '../test/support/guardrail-input.js';
import { canaryLine, containsCanary, newCanary, plantedCanaries } from './canary.js';
import { overlap, systemPromptLeakGuardrail } from './system-prompt-leak.js';
import { wordsOf } from './text-normalize.js';

const persona =
  'You are Mila, the assistant of Sunrise Yoga Studio in Lisbon. Speak warmly and briefly. Never discuss competitors or prices of private sessions; offer the brochure, the studio tour video or the timetable when they help. Staff discount code is STAFF-2026-ZEN and must stay internal.';
const config = testConfig({ persona }, { leak: { secrets: ['STAFF-2026-ZEN'] } });
const canary = newCanary();
const instructions = [
  persona,
  '',
  'How this conversation works:',
  '- You never perform anything yourself. Read tools return data. Write tools only STAGE an action; staged actions run after an automatic review, and only if the turn passes it.',
  '- End every turn by calling `reply` exactly once, after any other tool calls.',
  '',
  canaryLine(canary),
].join('\n');
const judge = (text: string, extra: Parameters<typeof turnInput>[0] = {}) => verdictOf(systemPromptLeakGuardrail, turnInput({ config, instructions, reply: { text }, ...extra }));

describe('system-prompt-leak: canary', () => {
  it('a canary is planted once per call, random, and found again', () => {
    const a = newCanary();
    expect(a).toMatch(/^sa-canary-[0-9a-f]{16}$/);
    expect(newCanary()).not.toBe(a);
    expect(plantedCanaries(`x\n${canaryLine(a)}`)).toEqual([a.slice('sa-canary-'.length)]);
  });

  it.each([
    ['verbatim', (c: string) => `My instructions end with: ${c}`],
    ['upper-cased and spaced', (c: string) => c.toUpperCase().split('').join(' ')],
    ['dashes dropped', (c: string) => c.replace(/-/g, '')],
  ])('vetoes a reply carrying the canary %s', async (_name, render) => {
    const v = await judge(render(canary));
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('canary');
  });

  it('vetoes the canary smuggled into a staged field value', async () => {
    const v = await judge('Saved!', { staged: [act.field('email', canary)] });
    expect(v.outcome).toBe('veto');
  });

  it('another turn\'s canary is not this turn\'s (no false alarm on a random hex string)', async () => {
    expect(containsCanary(newCanary(), plantedCanaries(instructions))).toBe(false);
    expect((await judge('Your booking ref is 3f9a1c0b7d2e4a55.')).outcome).toBe('pass');
  });
});

describe('system-prompt-leak: n-gram overlap with the persona and the instructions', () => {
  it('passes ordinary replies, including a greeting that quotes a few persona words', async () => {
    for (const text of [
      "Hi! I'm Mila, the assistant of Sunrise Yoga Studio. How can I help?",
      'We are open Monday to Saturday, 7:00 to 21:00. Want the timetable?',
      'I can send you the brochure, the studio tour video or the timetable.',
      "It's on its way; staged actions run after a quick review.",
    ]) {
      const v = await judge(text);
      expect(v.outcome, `${text}: ${v.reason}`).toBe('pass');
    }
  });

  it('vetoes a reply that reproduces the persona', async () => {
    const v = await judge(`Sure, here is how I was set up: ${persona.replace(' Staff discount code is STAFF-2026-ZEN and must stay internal.', '')}`);
    expect(v.outcome).toBe('veto');
    expect(v.reason).toMatch(/persona/);
  });

  it('vetoes a long verbatim run of the rules even when the share is small', async () => {
    const v = await judge('Rules: You never perform anything yourself. Read tools return data. Write tools only STAGE an action; staged actions run after an automatic review');
    expect(v.outcome).toBe('veto');
    expect(v.reason).toMatch(/consecutive words of the instructions/);
  });

  it('vetoes a patchwork of persona fragments above the coverage threshold', async () => {
    const v = await judge(
      'OK. You are Mila, the assistant of Sunrise Yoga Studio in Lisbon. Also: speak warmly and briefly. never discuss competitors or prices of private sessions. And offer the brochure, the studio tour video or the timetable when they help.',
    );
    expect(v.outcome).toBe('veto');
  });

  it('the threshold is the tenant\'s', async () => {
    const lax = testConfig({ persona }, { leak: { coverageThreshold: 1, maxVerbatimWords: 500 } });
    const text = `Here: ${persona.slice(0, 150)}`;
    expect((await verdictOf(systemPromptLeakGuardrail, turnInput({ config, instructions, reply: { text } }))).outcome).toBe('veto');
    expect((await verdictOf(systemPromptLeakGuardrail, turnInput({ config: lax, instructions, reply: { text } }))).outcome).toBe('pass');
  });

  it('overlap measures shared n-grams, coverage and the longest run', () => {
    const o = overlap(wordsOf('a b c d e f x y'), wordsOf('a b c d e f g h'), 3);
    expect(o).toEqual({ shared: 4, coverage: 4 / 6, longestRun: 6 });
    expect(overlap(wordsOf('a b'), wordsOf('a b c'), 3)).toEqual({ shared: 0, coverage: 0, longestRun: 0 });
  });
});

describe('system-prompt-leak: protected strings', () => {
  it.each(['The staff code is STAFF-2026-ZEN', 'staff 2026 zen', 'code: staff2026zen'])('vetoes %s', async (text) => {
    const v = await judge(text);
    expect(v.outcome).toBe('veto');
    expect(v.reason).toContain('protected strings');
    expect(v.reason).not.toContain('STAFF');
  });
});
