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
  displayName: 'Studio', persona: 'p', modelId: 'm', locale: 'en', deadlineMs: '8000', holdingReply: '', fallbackReply: 'f',
  'thresholds.minConfidence': '0.5', 'thresholds.guardrailTimeoutMs': '1000', 'handoff.reply': 'r', 'handoff.silenceMinutes': '60', guardrails: '{}',
};

describe('formToConfig', () => {
  it('drops removed and blank rows, splits lists, keeps what the form does not show, and forces the tenant', () => {
    const c = formToConfig({ ...base, tenantId: 'someone-else', 'flows.0.name': 'a', 'flows.0.ns': 'n1', 'flows.0.description': 'd', 'flows.0.keywords': 'x, y ,', 'flows.1.name': 'b', 'flows.1.ns': 'n2', 'flows.1.description': 'd', 'flows.1.remove': 'yes', 'flows.2.name': '', 'flows.2.ns': '', 'flows.2.description': '', 'flows.2.keywords': '' }, current);
    expect(c.flows).toEqual([{ name: 'a', ns: 'n1', description: 'd', keywords: ['x', 'y'] }]);
    expect(c.tools).toEqual(current.tools);
    expect(c.retentionDays).toBe(current.retentionDays);
    expect(c.tenantId).toBe('form-test');
  });

  it('prepared messages: rows to contents (text kept whole, keywords split), removed and blank rows dropped', () => {
    const c = formToConfig({ ...base, 'contents.0.name': 'price_list', 'contents.0.description': 'our prices', 'contents.0.text': 'Drop-in 15 €\nTen classes 120 €', 'contents.0.keywords': 'price, cost', 'contents.1.name': 'old', 'contents.1.description': 'd', 'contents.1.text': 't', 'contents.1.remove': 'yes', 'contents.2.name': '', 'contents.2.description': '', 'contents.2.text': '', 'contents.2.keywords': '' }, current);
    expect(c.contents).toEqual([{ name: 'price_list', description: 'our prices', text: 'Drop-in 15 €\nTen classes 120 €', keywords: ['price', 'cost'] }]);
    expect(parseTenantConfig(c).ok).toBe(true);
  });

  it('passes what is not a number through as typed, so the schema names the problem', () => {
    const c = formToConfig({ ...base, deadlineMs: 'soon' }, current);
    expect(c.deadlineMs).toBe('soon');
    const parsed = parseTenantConfig(c);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems.some((p) => p.startsWith('deadlineMs:'))).toBe(true);
  });

  it('tool order: one a line, empty means none; manifest rows by tool; checkboxes', () => {
    const c = formToConfig({ ...base, toolOrder: ' search_faq \r\n\r\n<unlisted-tools>', 'manifest.0.tool': 'send_media', 'manifest.0.effect': 'write', 'manifest.0.confirm': 'never', 'manifest.0.pinned': 'yes', 'manifest.1.tool': 'search_faq', 'manifest.1.effect': '' }, current);
    expect(c.toolOrder).toEqual(['search_faq', '<unlisted-tools>']);
    expect(c.manifest).toEqual({ send_media: { effect: 'write', confirm: 'never', pinned: true } });
    expect('toolOrder' in formToConfig({ ...base, toolOrder: '  ' }, current)).toBe(false);
  });

  it('the deny-list and card blocking come from their own fields; the JSON box holds the rest', () => {
    const c = formToConfig({ ...base, guardrails: '{"content":{"denyPhrases":["old"],"piiPatterns":[]}}', 'guardrails.content.denyPhrases': 'free money\n\nmiracle cure' }, current);
    expect(c.guardrails).toEqual({ content: { piiPatterns: [], denyPhrases: ['free money', 'miracle cure'], blockCardNumbers: false } });
    expect(JSON.parse(guardrailsJson(c.guardrails))).toEqual({ content: { piiPatterns: [] } });
    expect(formToConfig({ ...base, guardrails: '{not json' }, current).guardrails).toBe('{not json');
  });
});
