import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { editDistance, nearestName } from './nearest-name.js';
import { splitProblem } from './plain-issues.js';
import { parseTenantConfig } from './tenant-config.js';
import { REST_ENTRY } from './tool-order.js';

const base = () =>
  structuredClone(demoTenantConfig('t-save-checks')) as Record<string, unknown> & {
    flows: { ns: string }[];
    manifest: Record<string, unknown>;
    fields: Record<string, unknown>[];
  };
const problemsOf = (raw: unknown, mode: 'save' | 'load' = 'save') => {
  const r = parseTenantConfig(raw, mode);
  return r.ok ? [] : r.problems;
};

describe('nearest name', () => {
  it('finds the typo and refuses a far name', () => {
    expect(nearestName('search_fqa', ['search_faq', 'send_media'])).toBe('search_faq');
    expect(nearestName('fallbakReply', ['fallbackReply', 'persona'])).toBe('fallbackReply');
    expect(nearestName('totally_else', ['search_faq', 'send_media'])).toBeUndefined();
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('save-only checks', () => {
  it('a toolOrder that names a tool which is not registered is a configuration error, not silently dropped', () => {
    const raw = base();
    delete raw.manifest.untag_contact; // the tool stays configured, but nothing declares it: not registered
    const named = { ...raw, toolOrder: ['untag_contact', REST_ENTRY, 'reply'] };
    const problems = problemsOf(named);
    expect(problems.join('\n')).toContain('toolOrder names "untag_contact"');
    expect(problems.join('\n')).toContain('not declared');
    // Not named by the order: the config saves (the tool is only not offered), and a stored
    // config that names it still loads (its turns skip it).
    expect(problemsOf({ ...raw, toolOrder: [REST_ENTRY, 'reply'] })).toEqual([]);
    expect(problemsOf(named, 'load')).toEqual([]);
  });

  it('the demo config saves as it is', () => {
    expect(problemsOf(base())).toEqual([]);
  });

  it('an unknown key, top-level or in a row, is refused with the nearest known one', () => {
    const c = base();
    c.fallbakReply = 'x';
    (c.flows[0] as Record<string, unknown>).descripton = 'y';
    const problems = problemsOf(c);
    expect(problems).toContain('fallbakReply: unknown setting "fallbakReply"; did you mean "fallbackReply"?');
    expect(problems).toContain('flows.0.descripton: unknown setting "descripton"; did you mean "description"?');
    // A stored config with an old key still loads.
    expect(parseTenantConfig(c, 'load').ok).toBe(true);
  });

  it("a flow id must have ManyChat's shape; a pasted URL is named with the id inside it", () => {
    const c = base();
    c.flows[0]!.ns = 'https://app.manychat.com/fb123/cms/files/content20261101000000_000101';
    c.flows[1]!.ns = 'Studio tour';
    const problems = problemsOf(c);
    expect(problems.find((p) => p.startsWith('flows.0.ns:'))).toContain('use "content20261101000000_000101"');
    expect(problems.find((p) => p.startsWith('flows.1.ns:'))).toContain('is not a ManyChat flow id');
    expect(problems).toHaveLength(2);
  });

  it('an empty flow id is said in plain words, the path kept for programs', () => {
    const c = base();
    c.flows[1]!.ns = '';
    const [p] = problemsOf(c);
    expect(p).toBe('flows.1.ns: A flow needs its ManyChat flow id');
    expect(splitProblem(p!)).toEqual({ path: 'flows.1.ns', message: 'A flow needs its ManyChat flow id' });
  });

  it("a manifest name one typo from an undeclared tool is refused with the tool's name; a declared-ahead name is not", () => {
    const c = base();
    c.manifest.search_fqa = c.manifest.search_faq;
    delete c.manifest.search_faq;
    expect(problemsOf(c)).toEqual([
      expect.stringMatching(/^manifest\.search_fqa: no tool is named "search_fqa"; did you mean "search_faq"\?/),
    ]);
    const ahead = base();
    ahead.manifest.send_voucher = { effect: 'write', confirm: 'never' };
    expect(problemsOf(ahead)).toEqual([]);
  });

  it("keeps a custom field's label", () => {
    const r = parseTenantConfig(base());
    expect(r.ok && r.config.fields[0]!.label).toBe('your preferred class');
  });

  it('numbers and enums in plain words', () => {
    const c = base();
    c.deadlineMs = 100;
    c.locale = 'xx';
    const problems = problemsOf(c);
    expect(problems).toContain('deadlineMs: The deadline (ms) must be at least 500');
    expect(problems).toContain('locale: The language must be one of: en, es, pt, de, fr, it, tr, id');
  });
});
