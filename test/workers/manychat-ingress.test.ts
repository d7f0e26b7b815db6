import { describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

const brochure = () => scriptedModel([{ calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending you the brochure now.') }]);

async function nothingStaged(tenantId: string) {
  const turns = await session().one((r) => r.zcard(tenantKeys(tenantId).turnLog));
  expect(turns).toBe(0);
}

describe('bad input to the ManyChat webhook gets a named 4xx and stages nothing', () => {
  it('no secret → 401 naming the header', async () => {
    const { tenantId } = await seedTenant();
    const model = brochure();
    const res = await appWith(model).post(tenantId, null, { contact: { id: '1' }, text: 'hi' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toContain('x-staged-agent-secret');
    expect(model.doGenerateCalls).toHaveLength(0);
    await nothingStaged(tenantId);
  });

  it('wrong secret → 401', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, `${secret}x`, { contact: { id: '1' }, text: 'hi' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toContain('wrong');
    await nothingStaged(tenantId);
  });

  it("another tenant's secret → 401 (tenant isolation)", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const res = await appWith(brochure()).post(a.tenantId, b.secret, { contact: { id: '1' }, text: 'hi' });
    expect(res.status).toBe(401);
    await nothingStaged(a.tenantId);
  });

  it('malformed JSON → 400 saying so', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, secret, '{"contact": {');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('not valid JSON');
    await nothingStaged(tenantId);
  });

  it('missing contact id → 400 naming contact.id', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, secret, { contact: { first_name: 'Ada' }, text: 'hi' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: string[] };
    expect(body.details.join(' ')).toContain('contact.id');
    await nothingStaged(tenantId);
  });

  it('no text at all → 400', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, secret, { contact: { id: '7' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('text');
  });

  it('oversized body → 413', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, secret, { contact: { id: '1' }, text: 'x'.repeat(70 * 1024) });
    expect(res.status).toBe(413);
    await nothingStaged(tenantId);
  });

  it('unknown tenant → 404 naming it', async () => {
    const res = await appWith(brochure()).post('no_such_tenant_zz', 'whatever', { contact: { id: '1' }, text: 'hi' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toContain('no_such_tenant_zz');
  });

  it('accepts the bare Full Contact Data body with last_input_text', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const res = await appWith(brochure()).post(tenantId, secret, { id: Number(contactId), key: `user:${contactId}`, last_input_text: 'brochure please', last_interaction: '2026-11-29T10:00:00+00:00', custom_fields: {} });
    expect(res.status).toBe(200);
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.inbound.text).toBe('brochure please');
    expect(record.inbound.messageKey).toContain('2026-11-29T10:00:00');
  });
});

describe('duplicates and round trips', () => {
  it('20 concurrent deliveries of one message → one turn, one set of actions, the same reply', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([{ delayMs: 150, calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending you the brochure now.') }]);
    const app = appWith(model);
    const body = { contact: { id: contactId }, text: 'brochure please', message_key: `mk-${contactId}` };
    const responses = await Promise.all(Array.from({ length: 20 }, () => app.post(tenantId, secret, body)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const turnIds = new Set(responses.map((r) => r.headers.get('x-turn-id')));
    expect(turnIds.size).toBe(1);
    expect(model.doGenerateCalls).toHaveLength(1);
    const texts = await Promise.all(responses.map(async (r) => ((await r.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text));
    expect(new Set(texts)).toEqual(new Set(['Sending you the brochure now.']));
    const turns = await session().one((r) => r.zcard(tenantKeys(tenantId).turnLog));
    expect(turns).toBe(1);
    const entry = await outboxEntry(tenantId, [...turnIds][0]!);
    expect(entry?.actions).toHaveLength(1);
  });

  it('a duplicate after the turn finished gets the same reply without a model call', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const model = brochure();
    const app = appWith(model);
    const body = { contact: { id: contactId, last_interaction: '2026-11-29T11:00:00Z' }, text: 'brochure please' };
    const first = await app.post(tenantId, secret, body);
    const again = await app.post(tenantId, secret, body);
    expect(again.headers.get('x-duplicate-of')).toBe(first.headers.get('x-turn-id'));
    expect(await again.json()).toEqual(await first.json());
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('counts Redis round trips: 3 before the model (tenant, rate limit, claim), 1 after', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(brochure());
    // The first rate-limit call of an isolate may load its scripts (one or two extra round trips).
    await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'brochure please' });
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'brochure please' });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.redisRoundTrips).toEqual({ beforeModel: 3, afterModel: 1 });
  });
});
