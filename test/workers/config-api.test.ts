import { describe, expect, it } from 'vitest';
import { seedTenant } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { TenantConfigSchema } from '../../core/tenant/tenant-config.js';
import { REST_ENTRY } from '../../core/tenant/tool-order.js';

type JsonSchema = {
  properties: Record<string, { description?: string; minimum?: number; maximum?: number }>;
  required: string[];
};

describe('GET /v1/tenants/:t/config/schema', () => {
  it('is the JSON Schema generated from the zod schema, every field described', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const res = await tenantApi(tenantId, adminSecret, 'GET', '/config/schema');
    expect(res.status).toBe(200);
    const schema = (await res.json()) as JsonSchema;
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(TenantConfigSchema.shape).sort());
    for (const [key, property] of Object.entries(schema.properties)) expect(property.description, key).toMatch(/\S/);
    expect(schema.properties.deadlineMs).toMatchObject({ minimum: 500, maximum: 9500 });
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'persona', 'fallbackReply', 'handoff']));
    // The URL names the tenant: a body may leave tenantId out.
    expect(schema.required).not.toContain('tenantId');
  });

  it('is admin-only', async () => {
    const { tenantId, secret } = await seedTenant();
    expect((await tenantApi(tenantId, secret, 'GET', '/config/schema')).status).toBe(401);
  });
});

describe('PUT /v1/tenants/:t/config', () => {
  it('reports every problem at once: field errors and cross-field rules in one answer', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const base = demoTenantConfig(tenantId);
    const five = {
      ...base,
      persona: '', // field: empty
      deadlineMs: 100, // field: below the minimum
      flows: [
        ...base.flows!,
        { ...base.flows![0]!, description: 'again' },
        { name: 'Bad Name', ns: 'x', description: 'y' },
      ], // a duplicate and an invalid name
      handoff: { ...base.handoff, tag: 'no_such_tag' }, // cross-field: unknown tag
      toolOrder: ['send_media'], // cross-field: no rest entry
    };
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', five);
    expect(res.status).toBe(400);
    const { details } = (await res.json()) as { details: string[] };
    const all = details.join('\n');
    expect(all).toContain('persona:');
    expect(all).toContain('deadlineMs:');
    expect(all).toContain('flows.4.name:');
    expect(all).toContain('flow "brochure" is declared twice');
    expect(all).toContain('handoff.tag "no_such_tag" is not a configured tag');
    expect(all).toContain(`"${REST_ENTRY}" exactly once`);
    // Nothing was stored.
    const stored = (await (await tenantApi(tenantId, adminSecret, 'GET', '/config')).json()) as { persona: string };
    expect(stored.persona).toBe(base.persona);
  });

  it("says each problem in plain words and keeps its machine path: an empty flow id, a typo'd key, a typo'd manifest name", async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const base = demoTenantConfig(tenantId);
    const manifest = { ...base.manifest, search_fqa: base.manifest!.search_faq! } as Record<string, unknown>;
    delete manifest.search_faq;
    const body = { ...base, fallbakReply: 'oops', flows: [base.flows![0]!, { ...base.flows![1]!, ns: '' }], manifest };
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { details: string[]; problems: { path: string | null; message: string }[] };
    expect(json.problems).toContainEqual({ path: 'flows.1.ns', message: 'A flow needs its ManyChat flow id' });
    expect(json.problems).toContainEqual({
      path: 'fallbakReply',
      message: 'unknown setting "fallbakReply"; did you mean "fallbackReply"?',
    });
    expect(json.problems).toContainEqual(
      expect.objectContaining({
        path: 'manifest.search_fqa',
        message: expect.stringContaining('did you mean "search_faq"?'),
      }),
    );
    expect(json.details).toContain('flows.1.ns: A flow needs its ManyChat flow id');
    // Nothing was stored: search_faq is still declared.
    const stored = (await (await tenantApi(tenantId, adminSecret, 'GET', '/config')).json()) as {
      manifest: Record<string, unknown>;
    };
    expect(Object.keys(stored.manifest)).toContain('search_faq');
  });

  it('refuses a body whose tenantId differs from the URL, naming both, and saves nothing', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', {
      ...demoTenantConfig('someone-else'),
      persona: 'changed',
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: string };
    expect(error).toContain('"someone-else"');
    expect(error).toContain(`"${tenantId}"`);
    const stored = (await (await tenantApi(tenantId, adminSecret, 'GET', '/config')).json()) as {
      persona: string;
      tenantId: string;
    };
    expect(stored.persona).not.toBe('changed');
    // Without tenantId the URL's is taken.
    const { tenantId: _omit, ...withoutId } = { ...demoTenantConfig(tenantId), persona: 'changed' };
    const ok = await tenantApi(tenantId, adminSecret, 'PUT', '/config', withoutId);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { config: { tenantId: string; persona: string } }).config).toMatchObject({
      tenantId,
      persona: 'changed',
    });
  });
});

describe('GET /v1/tenants/:t/manifest', () => {
  it('shows the effective tool order: lexicographic by default, the tenant toolOrder when set, unregistered tools named', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const res = await tenantApi(tenantId, adminSecret, 'GET', '/manifest');
    const body = (await res.json()) as { toolOrder: { order: string[]; notRegistered: string[] } };
    expect(body.toolOrder.order).toEqual([
      'lookup_contact',
      'record_choice',
      'reply',
      'search_faq',
      'send_media',
      'tag_contact',
      'untag_contact',
    ]);
    expect(body.toolOrder.notRegistered).toEqual([]);

    const base = demoTenantConfig(tenantId);
    const { untag_contact: _dropped, ...manifest } = base.manifest!;
    const put = await tenantApi(tenantId, adminSecret, 'PUT', '/config', {
      ...base,
      manifest,
      toolOrder: ['reply', REST_ENTRY, 'lookup_contact'],
    });
    expect(put.status).toBe(200);
    const after = (await (await tenantApi(tenantId, adminSecret, 'GET', '/manifest')).json()) as {
      toolOrder: { order: string[]; notRegistered: string[] };
    };
    expect(after.toolOrder.order).toEqual([
      'reply',
      'record_choice',
      'search_faq',
      'send_media',
      'tag_contact',
      'lookup_contact',
    ]);
    expect(after.toolOrder.notRegistered.join(' ')).toContain('untag_contact');
  });
});
