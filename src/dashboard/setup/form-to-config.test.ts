import { describe, expect, it } from 'vitest';
import { parseTenantConfig } from '../../../core/tenant/tenant-config.js';
import { demoTenantConfig } from '../../../dev/demo-tenant.js';
import { formToConfig, guardrailsJson } from './form-to-config.js';

const current = (() => {
  const parsed = parseTenantConfig(demoTenantConfig('form-test'));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.config;
})();

const base = {
  displayName: 'Studio',
  persona: 'p',
  modelId: 'm',
  locale: 'en',
  deadlineMs: '8000',
  holdingReply: '',
  fallbackReply: 'f',
  'thresholds.minConfidence': '0.5',
  'thresholds.guardrailTimeoutMs': '1000',
  'handoff.reply': 'r',
  'handoff.silenceMinutes': '60',
  guardrails: '{}',
};

describe('formToConfig', () => {
  it('drops removed and blank rows, splits lists, keeps what the form does not show, and forces the tenant', () => {
    const c = formToConfig(
      {
        ...base,
        tenantId: 'someone-else',
        'flows.0.name': 'a',
        'flows.0.ns': 'n1',
        'flows.0.description': 'd',
        'flows.0.keywords': 'x, y ,',
        'flows.1.name': 'b',
        'flows.1.ns': 'n2',
        'flows.1.description': 'd',
        'flows.1.remove': 'yes',
        'flows.2.name': '',
        'flows.2.ns': '',
        'flows.2.description': '',
        'flows.2.keywords': '',
      },
      current,
      'catalogue',
    );
    expect(c.flows).toEqual([{ name: 'a', ns: 'n1', description: 'd', keywords: ['x', 'y'] }]);
    expect(c.tools).toEqual(current.tools);
    expect(c.retentionDays).toBe(current.retentionDays);
    expect(c.tenantId).toBe('form-test');
  });

  it('prepared messages: rows to contents (text kept whole, keywords split), removed and blank rows dropped', () => {
    const c = formToConfig(
      {
        ...base,
        'contents.0.name': 'price_list',
        'contents.0.description': 'our prices',
        'contents.0.text': 'Drop-in 15 €\nTen classes 120 €',
        'contents.0.keywords': 'price, cost',
        'contents.1.name': 'old',
        'contents.1.description': 'd',
        'contents.1.text': 't',
        'contents.1.remove': 'yes',
        'contents.2.name': '',
        'contents.2.description': '',
        'contents.2.text': '',
        'contents.2.keywords': '',
      },
      current,
    );
    expect(c.contents).toEqual([
      {
        name: 'price_list',
        description: 'our prices',
        text: 'Drop-in 15 €\nTen classes 120 €',
        keywords: ['price', 'cost'],
      },
    ]);
    expect(parseTenantConfig(c).ok).toBe(true);
  });

  it('passes what is not a number through as typed, so the schema names the problem', () => {
    const c = formToConfig({ ...base, deadlineMs: 'soon' }, current);
    expect(c.deadlineMs).toBe('soon');
    const parsed = parseTenantConfig(c);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems.some((p) => p.startsWith('deadlineMs:'))).toBe(true);
  });

  it('tool order: one a line, empty means none; a tool row is its instance and its declaration; checkboxes', () => {
    const c = formToConfig(
      {
        ...base,
        toolOrder: ' search_faq \r\n\r\n<unlisted-tools>',
        'tools.0.name': 'send_media',
        'tools.0.kind': 'send_flow',
        'tools.0.description': 'Send a flow.',
        'tools.0.effect': 'write',
        'tools.0.confirm': 'never',
        'tools.0.pinned': 'yes',
        'tools.0.resources': 'flow:brochure, flow:timetable',
        'tools.1.name': 'search_faq',
        'tools.1.kind': 'search_faq',
        'tools.1.description': 'FAQ',
        'tools.1.effect': '',
        'tools.2.name': 'old_tool',
        'tools.2.kind': 'add_tag',
        'tools.2.description': 'x',
        'tools.2.effect': 'write',
        'tools.2.remove': 'yes',
        'tools.3.name': 'ghost',
        'tools.3.declarationOnly': 'yes',
        'tools.3.effect': 'read',
        'tools.4.name': '',
        'tools.4.kind': '',
        'tools.4.description': '',
        'tools.4.effect': '',
      },
      current,
      'tools',
    );
    expect(c.toolOrder).toEqual(['search_faq', '<unlisted-tools>']);
    expect(c.tools).toEqual([
      { name: 'send_media', kind: 'send_flow', description: 'Send a flow.' },
      { name: 'search_faq', kind: 'search_faq', description: 'FAQ' },
    ]);
    expect(c.manifest).toEqual({
      send_media: { effect: 'write', confirm: 'never', pinned: true, resources: ['flow:brochure', 'flow:timetable'] },
      ghost: { effect: 'read' },
    });
    expect('toolOrder' in formToConfig({ ...base, toolOrder: '  ' }, current, 'tools')).toBe(false);
  });

  it('a section changes only its own part: the persona form leaves flows, tools and the manifest as stored', () => {
    const c = formToConfig({ ...base, persona: 'You are Mila.' }, current, 'persona');
    expect(c.persona).toBe('You are Mila.');
    expect(c.flows).toEqual(current.flows);
    expect(c.tools).toEqual(current.tools);
    expect(c.manifest).toEqual(current.manifest);
    expect(c.guardrails).toEqual(current.guardrails);
  });

  it("a pasted ManyChat flow address is cut to its id; a custom field's label is kept", () => {
    const c = formToConfig(
      {
        'flows.0.name': 'tour',
        'flows.0.ns': 'https://app.manychat.com/fb123/cms/files/content20261101000000_000101/edit',
        'flows.0.description': 'd',
        'fields.0.name': 'preferred_class',
        'fields.0.label': 'your preferred class',
        'fields.0.type': 'text',
        'fields.0.description': '',
      },
      current,
      'catalogue',
    );
    expect((c.flows as { ns: string }[])[0]!.ns).toBe('content20261101000000_000101');
    expect(c.fields).toEqual([
      { name: 'preferred_class', label: 'your preferred class', type: 'text', description: '' },
    ]);
  });

  it('the deny-list and card blocking come from their own fields; the JSON box holds the rest', () => {
    const c = formToConfig(
      {
        ...base,
        guardrails: '{"content":{"denyPhrases":["old"],"piiPatterns":[]}}',
        'guardrails.content.denyPhrases': 'free money\n\nmiracle cure',
      },
      current,
    );
    expect(c.guardrails).toEqual({
      content: { piiPatterns: [], denyPhrases: ['free money', 'miracle cure'], blockCardNumbers: false },
    });
    expect(JSON.parse(guardrailsJson(c.guardrails))).toEqual({ content: { piiPatterns: [] } });
    expect(formToConfig({ ...base, guardrails: '{not json' }, current).guardrails).toBe('{not json');
  });
});
