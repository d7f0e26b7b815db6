import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { parseTenantConfig } from './tenant-config.js';
import { compileTenantPattern, piiProgramProblems, regexProblem } from './tenant-pattern.js';
import { GuardrailSettingsSchema } from './guardrail-settings.js';

describe('guardrail settings', () => {
  it('a config without `guardrails` reads with safe defaults', () => {
    const parsed = parseTenantConfig(demoTenantConfig('t1'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const g = parsed.config.guardrails;
    expect(g.content).toEqual({ denyPhrases: [], blockCardNumbers: true, piiPatterns: [] });
    expect(g.actions.maxFlowsPerTurn).toBe(2);
    expect(g.rateLimit.contactPerHour * g.actions.maxFlowsPerTurn).toBeLessThanOrEqual(100);
    expect(g.leak.ngramWords).toBe(5);
    expect(g.messagingWindow.allowedMessageTags).toEqual([]);
  });

  it("refuses settings that would let a contact exceed ManyChat's 100 sendFlow an hour", () => {
    const r = GuardrailSettingsSchema.safeParse({ rateLimit: { contactPerHour: 60 }, actions: { maxFlowsPerTurn: 2 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['rateLimit', 'contactPerHour']);
    expect(r.error?.issues[0]?.message).toContain('120 flows an hour');
  });

  it('refuses PII patterns the linear-time engine cannot run, at save', () => {
    const bad = parseTenantConfig({
      ...demoTenantConfig('t2'),
      guardrails: { content: { piiPatterns: [{ name: 'x', pattern: '(a)\\1' }] } },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.join(' ')).toContain('guardrails.content.piiPatterns.0.pattern');
    expect(
      parseTenantConfig({
        ...demoTenantConfig('t3'),
        guardrails: { content: { piiPatterns: [{ name: 'x', pattern: '([a-z' }] } },
      }).ok,
    ).toBe(false);
  });

  it('refuses at save a pattern whose compiled program is too large, naming the pattern (short source, huge program)', () => {
    const heavy = '.{0,1000}.{0,1000}.{0,1000}x';
    expect(heavy.length).toBeLessThan(200);
    const bad = parseTenantConfig({
      ...demoTenantConfig('t4'),
      guardrails: {
        content: {
          piiPatterns: [
            { name: 'email', pattern: String.raw`[\w.+-]+@[\w-]+\.[\w.]+` },
            { name: 'slow-one', pattern: heavy },
          ],
        },
      },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.problems.join(' ')).toContain('guardrails.content.piiPatterns.1.pattern');
      expect(bad.problems.join(' ')).toContain('"slow-one"');
      expect(bad.problems.join(' ')).toContain('instructions');
      expect(bad.problems.join(' ')).not.toContain('"email"');
    }
  });

  it('refuses at save patterns that are each within bounds but too large together, naming the largest', () => {
    // 5 patterns of 94 instructions each: each acceptable, 470 together.
    const piiPatterns = Array.from({ length: 5 }, (_, i) => ({ name: `p${i}`, pattern: `.{0,15}.{0,15}.{0,15}x${i}` }));
    const bad = parseTenantConfig({ ...demoTenantConfig('t5'), guardrails: { content: { piiPatterns } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.join(' ')).toMatch(/together, more than 400; the largest are "p\d+"/);
    // Realistic patterns fit, and two tenants' configs are judged each on their own.
    const realistic = [
      String.raw`\b\d{3}-\d{2}-\d{4}\b`,
      String.raw`\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}\b`,
      String.raw`(\d{4}[ -]?){3}\d{4}`,
      String.raw`[\w.+-]+@[\w-]+\.[\w.]+`,
      String.raw`passport\s*(?:no|number)?:?\s*[A-Z0-9]{6,9}`,
      String.raw`\+?\d[\d ().-]{7,16}\d`,
    ];
    expect(
      parseTenantConfig({
        ...demoTenantConfig('t6'),
        guardrails: { content: { piiPatterns: realistic.map((pattern, i) => ({ name: `r${i}`, pattern })) } },
      }).ok,
    ).toBe(true);
  });

  it('refuses at save patterns within the instruction bounds that cannot read an ordinary reply within a turn’s matcher budget, naming the reply', () => {
    // 94 instructions each, 376 together, but their matcher must remember which of the last 90
    // characters were in each range: on prose, new states and transitions nearly every character.
    const windows = ['[a-m].{90}!', '[n-z].{90}!', '[a-f].{90}#', '[g-p].{90}#'];
    const bad = parseTenantConfig({
      ...demoTenantConfig('t7'),
      guardrails: { content: { piiPatterns: windows.map((pattern, i) => ({ name: `window${i}`, pattern })) } },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems.join(' ')).toMatch(
        /guardrails\.content\.piiPatterns: together the patterns cannot read an? \w+ (reply|price list)[^;]* within a turn's matcher budget/,
      );
    // One of them reads every reply within the budget.
    expect(
      parseTenantConfig({
        ...demoTenantConfig('t8'),
        guardrails: { content: { piiPatterns: [{ name: 'window0', pattern: windows[0]! }] } },
      }).ok,
    ).toBe(true);
  });

  it('refuses an unknown message tag and a malformed media host', () => {
    expect(GuardrailSettingsSchema.safeParse({ messagingWindow: { allowedMessageTags: ['PROMO'] } }).success).toBe(
      false,
    );
    expect(GuardrailSettingsSchema.safeParse({ actions: { mediaHosts: ['https://cdn.example.com/'] } }).success).toBe(
      false,
    );
    expect(GuardrailSettingsSchema.safeParse({ actions: { mediaHosts: ['*.cdn.example.com'] } }).success).toBe(true);
  });
});

describe('tenant patterns run on a linear-time engine', () => {
  it.each([
    String.raw`\b\d{3}-\d{2}-\d{4}\b`,
    String.raw`\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}\b`,
    String.raw`(\d{4}[ -]?){3}\d{4}`,
    String.raw`[\w.+-]+@[\w-]+\.[\w.]+`,
    String.raw`passport\s*(?:no|number)?:?\s*[A-Z0-9]{6,9}`,
    // Catastrophic for a backtracking engine, linear on RE2: accepted, and cheap (see bench:regex).
    String.raw`\d*\d*\d*x`,
    '(a+)+$',
    '(a|aa)*b',
  ])('accepts %s', (p) => {
    expect(regexProblem(p)).toBeNull();
  });

  it.each([
    [String.raw`(a)\1`, 'linear-time engine'],
    ['(?<=x)y', 'linear-time engine'],
    ['x(?=y)', 'linear-time engine'],
    ['[unclosed', 'linear-time engine'],
    ['x'.repeat(201), 'longer than'],
  ])('refuses %s, naming why', (p, why) => {
    expect(regexProblem(p)).toContain(why);
  });

  it('a pattern that would take a backtracking engine minutes finishes at once on 4,000 characters', () => {
    const compiled = compileTenantPattern(String.raw`\d*\d*\d*x`);
    expect(compiled.ok).toBe(true);
    // Correctness, not speed: the match is decided (no match), where V8's RegExp would not return.
    if (compiled.ok) expect(compiled.pattern.matcher('1'.repeat(4000)).find()).toBe(false);
  });
});

describe('the save’s bounds on PII patterns, at their edges', () => {
  const pii = (sources: string[]) => sources.map((pattern, i) => ({ name: `p${i}`, pattern, caseInsensitive: false }));

  it('a pattern of exactly 200 characters is accepted, 201 refused for its length', () => {
    const at = `[${'a'.repeat(198)}]`;
    expect(at).toHaveLength(200);
    expect(regexProblem(at)).toBeNull();
    expect(regexProblem(`[${'a'.repeat(199)}]`)).toBe('pattern is longer than 200 characters');
  });

  it('a pattern of exactly 100 instructions is accepted, 101 refused', () => {
    // re2js compiles a{n} to n + 2 instructions.
    const at = compileTenantPattern('a{98}', { caseInsensitive: false });
    expect(at.ok && at.pattern.programSize()).toBe(100);
    expect(regexProblem('a{99}')).toMatch(/^pattern compiles to 101 instructions, more than 100/);
  });

  it('patterns of exactly 400 instructions together are accepted, 401 refused', () => {
    expect(piiProgramProblems(pii(['a{98}', 'b{98}', 'c{98}', 'd{98}']))).toEqual([]);
    expect(piiProgramProblems(pii(['a{98}', 'b{98}', 'c{98}', 'd{96}', 'e']))).toEqual([
      'guardrails.content.piiPatterns: the patterns compile to 401 instructions together, more than 400; the largest are "p0" (100), "p1" (100), "p2" (100)',
    ]);
  });

  it('the refusal names the three largest, largest first', () => {
    const [problem] = piiProgramProblems(pii(['x{50}', 'a{98}', 'y{30}', 'b{98}', 'c{96}', 'z{50}']));
    expect(problem).toBe(
      'guardrails.content.piiPatterns: the patterns compile to 434 instructions together, more than 400; the largest are "p1" (100), "p3" (100), "p4" (98)',
    );
  });

  it('a pattern that does not compile is left to its own refusal: the totals and the probe skip it', () => {
    expect(piiProgramProblems(pii(['(a)\\1', 'x']))).toEqual([]);
    expect(piiProgramProblems(pii(['(a)\\1']))).toEqual([]);
  });
});
