import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { parseTenantConfig } from './tenant-config.js';
import { regexProblem } from './regex-safety.js';
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

  it('refuses settings that would let a contact exceed ManyChat\'s 100 sendFlow an hour', () => {
    const r = GuardrailSettingsSchema.safeParse({ rateLimit: { contactPerHour: 60 }, actions: { maxFlowsPerTurn: 2 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['rateLimit', 'contactPerHour']);
    expect(r.error?.issues[0]?.message).toContain('120 flows an hour');
  });

  it('refuses PII patterns that do not compile or could backtrack without bound, at save', () => {
    const bad = parseTenantConfig({ ...demoTenantConfig('t2'), guardrails: { content: { piiPatterns: [{ name: 'x', pattern: '(a+)+$' }] } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.join(' ')).toContain('guardrails.content.piiPatterns.0.pattern');
    expect(parseTenantConfig({ ...demoTenantConfig('t3'), guardrails: { content: { piiPatterns: [{ name: 'x', pattern: '([a-z' }] } } }).ok).toBe(false);
  });

  it('refuses an unknown message tag and a malformed media host', () => {
    expect(GuardrailSettingsSchema.safeParse({ messagingWindow: { allowedMessageTags: ['PROMO'] } }).success).toBe(false);
    expect(GuardrailSettingsSchema.safeParse({ actions: { mediaHosts: ['https://cdn.example.com/'] } }).success).toBe(false);
    expect(GuardrailSettingsSchema.safeParse({ actions: { mediaHosts: ['*.cdn.example.com'] } }).success).toBe(true);
  });
});

describe('regex safety', () => {
  it.each([
    String.raw`\b\d{3}-\d{2}-\d{4}\b`,
    String.raw`\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}\b`,
    String.raw`(\d{4}[ -]?){3}\d{4}`,
    String.raw`[\w.+-]+@[\w-]+\.[\w.]+`,
    String.raw`passport\s*(?:no|number)?:?\s*[A-Z0-9]{6,9}`,
  ])('accepts %s', (p) => {
    expect(regexProblem(p)).toBeNull();
  });

  it.each([
    ['(a+)+$', 'repetition'],
    ['(a|aa)*b', 'repetition'],
    [String.raw`(\w*\s?)+x`, 'repetition'],
    ['((ab)*)+', 'repetition'],
    [String.raw`(a)\1`, 'backreferences'],
    ['(?<=x)y', 'lookbehind'],
    ['[unclosed', 'does not compile'],
    ['x'.repeat(201), 'longer than'],
  ])('refuses %s', (p, why) => {
    expect(regexProblem(p)).toContain(why);
  });
});
