import { describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

const brochure = () =>
  scriptedModel([
    { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending you the brochure now.') },
  ]);

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

  it('no text at all (a sticker, a voice note ManyChat passes nothing for) → 200 with the polite no-text reply, no turn', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, secret, { contact: { id: '7' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-no-text')).toBe('1');
    expect(res.headers.get('x-turn-id')).toBeNull();
    const body = (await res.json()) as { content: { messages: { text: string }[] } };
    expect(body.content.messages[0]!.text).toContain('text messages');
  });

  it('oversized body → 413', async () => {
    const { tenantId, secret } = await seedTenant();
    const res = await appWith(brochure()).post(tenantId, secret, { contact: { id: '1' }, text: 'x'.repeat(70 * 1024) });
    expect(res.status).toBe(413);
    await nothingStaged(tenantId);
  });

  it('an unknown tenant is answered exactly as a wrong secret: the same 401, body and all', async () => {
    const { tenantId, secret } = await seedTenant();
    const app = appWith(brochure());
    const body = { contact: { id: '1' }, text: 'hi' };
    const unknown = await app.post('no-such-tenant-zz', secret, body);
    const wrong = await app.post(tenantId, `${secret}x`, body);
    expect([unknown.status, wrong.status]).toEqual([401, 401]);
    expect(await unknown.json()).toEqual(await wrong.json());
    // Without a header, too: the unknown tenant looks like any tenant asked without its secret.
    const [unknownBare, knownBare] = [
      await app.post('no-such-tenant-zz', null, body),
      await app.post(tenantId, null, body),
    ];
    expect(await unknownBare.json()).toEqual(await knownBare.json());
    // An id that cannot be a tenant id (a ':' would reach into another key space) is just as unknown.
    expect(await (await app.post('demo:x', secret, body)).json()).toEqual({
      error: 'wrong x-staged-agent-secret for this tenant',
    });
  });

  it('a broken stored config is shown only to a caller with the secret (503 with its problems); others get the same 401', async () => {
    const { tenantId, secret } = await seedTenant();
    await session().one((r) =>
      r.set(tenantKeys(tenantId).config, JSON.stringify({ version: 1, tenantId, persona: '' })),
    );
    const app = appWith(brochure());
    const body = { contact: { id: '1' }, text: 'hi' };
    const wrong = await app.post(tenantId, 'not-the-secret', body);
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(await wrong.json())).not.toContain('persona');
    const right = await app.post(tenantId, secret, body);
    expect(right.status).toBe(503);
    expect(((await right.json()) as { details: string[] }).details.join(' ')).toContain('persona');
  });

  it('accepts the bare Full Contact Data body with last_input_text', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const res = await appWith(brochure()).post(tenantId, secret, {
      id: Number(contactId),
      key: `user:${contactId}`,
      last_input_text: 'brochure please',
      last_interaction: '2026-11-29T10:00:00+00:00',
      custom_fields: {},
    });
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
    const model = scriptedModel([
      {
        delayMs: 150,
        calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
        reply: reply('Sending you the brochure now.'),
      },
    ]);
    const app = appWith(model);
    const body = { contact: { id: contactId }, text: 'brochure please', message_key: `mk-${contactId}` };
    const responses = await Promise.all(Array.from({ length: 20 }, () => app.post(tenantId, secret, body)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const turnIds = new Set(responses.map((r) => r.headers.get('x-turn-id')));
    expect(turnIds.size).toBe(1);
    expect(model.doGenerateCalls).toHaveLength(1);
    const texts = await Promise.all(
      responses.map(
        async (r) => ((await r.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text,
      ),
    );
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

  it('counts Redis round trips: 1 before the model (rate limits, revision, claim in one request) once the isolate holds the tenant, 1 after', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(brochure());
    // The isolate's first message of the tenant reads it (one more round trip), and the first
    // rate-limit call of an isolate may load its scripts (one or two more).
    const first = await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'brochure please' });
    expect(
      (await turnRecord(tenantId, first.headers.get('x-turn-id')!)).redisRoundTrips.beforeModel,
    ).toBeGreaterThanOrEqual(2);
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'brochure please' });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.redisRoundTrips).toEqual({ beforeModel: 1, afterModel: 1 });
  });

  it('a cached tenant is checked against its stored revision: a rotated secret is refused at once, and nothing stays claimed', async () => {
    const { tenantId, secret } = await seedTenant();
    const app = appWith(brochure());
    const contactId = await newContact();
    expect(
      (await app.post(tenantId, secret, { contact: { id: contactId }, text: 'hi', message_key: 'warm' })).status,
    ).toBe(200);
    // The secret changes behind the isolate's back (as a rotation with no overlap would).
    const { saveTenant } = await import('../../src/tenants/tenant-store.js');
    const { demoTenantConfig } = await import('../../dev/demo-tenant.js');
    const { testSecretKeys } = await import('../support/workers-env.js');
    await saveTenant(
      session(),
      { ...demoTenantConfig(tenantId), tenantId },
      { plain: { webhookSecret: 'the-new-secret', manychatApiKey: '1:k' }, keys: await testSecretKeys() },
    );
    const stale = await app.post(tenantId, secret, {
      contact: { id: contactId },
      text: 'brochure please',
      message_key: 'after-rotation',
    });
    expect(stale.status).toBe(401);
    const fresh = await app.post(tenantId, 'the-new-secret', {
      contact: { id: contactId },
      text: 'brochure please',
      message_key: 'after-rotation',
    });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-duplicate-of')).toBeNull();
  });

  it('a suspended tenant the isolate remembers is read again: deleted since → 401, not the suspended reply', async () => {
    const { tenantId, secret } = await seedTenant();
    const app = appWith(brochure());
    const { setTenantStatus, deleteTenant } = await import('../../src/tenants/provisioning.js');
    await setTenantStatus(session(), tenantId, 'suspended');
    const paused = await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'hi' });
    expect(paused.headers.get('x-tenant-suspended')).toBe('1');
    await deleteTenant(session(), tenantId);
    const gone = await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'hi again' });
    expect(gone.status).toBe(401);
    expect(gone.headers.get('x-tenant-suspended')).toBeNull();
    // And the isolate forgot it: the next request is refused the same way.
    expect((await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'third' })).status).toBe(401);
  });
});
