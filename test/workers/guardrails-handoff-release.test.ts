import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord, type AppUnderTest } from './turn-helpers.js';

type Block = { content: { messages: { text: string }[] } };

function release(app: AppUnderTest, tenantId: string, contactId: string, secret: string | null) {
  return app.fetch(
    new Request(`http://worker.test/v1/tenants/${tenantId}/contacts/${encodeURIComponent(contactId)}/release`, {
      method: 'POST',
      headers: secret === null ? {} : { authorization: `Bearer ${secret}` },
    }),
  );
}

/** A contact whose turn escalated (the model asked for a human): silenced for the tenant's window. */
async function handedOff() {
  const { tenantId, secret, adminSecret } = await seedTenant();
  const contactId = await newContact();
  const model = scriptedModel([
    { reply: reply('Let me get a human.', { escalate: true, reason: 'wants a refund' }) },
    { reply: reply('Hello again, how can I help?') },
  ]);
  const app = appWith(model);
  const res = await app.post(tenantId, secret, {
    contact: { id: contactId },
    text: 'I want to talk to a person about a refund',
  });
  const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
  return { tenantId, secret, adminSecret, contactId, app, model, record, block: (await res.json()) as Block };
}

describe('handoff: the contact is told a human will follow up, and the model stays silent', () => {
  it('an escalated turn adds the handoff tag, tells the contact, and silences later turns', async () => {
    const { tenantId, secret, contactId, app, model, record, block } = await handedOff();
    expect(record.decision).toBe('escalate');
    expect(block.content.messages[0]?.text).toBe('Thanks! A teammate will pick this up shortly.');
    expect((await outboxEntry(tenantId, record.turnId))?.actions.map((a) => [a.tool, a.kind, a.args.tag])).toEqual([
      ['system:handoff', 'add_tag', 'human_handoff'],
    ]);
    expect(await session().one((r) => r.get(tenantKeys(tenantId).handoff(contactId)))).toBeTruthy();
    const silent = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'hello?' });
    expect(((await silent.json()) as Block).content.messages).toEqual([]);
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});

describe('POST /v1/tenants/:tenant/contacts/:contact/release', () => {
  it('deletes the handoff key; the next message is answered by the model again', async () => {
    const { tenantId, secret, adminSecret, contactId, app, model } = await handedOff();
    const res = await release(app, tenantId, contactId, adminSecret);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tenantId, contactId, released: true });
    expect(await session().one((r) => r.get(tenantKeys(tenantId).handoff(contactId)))).toBeNull();
    const next = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'are you there?' });
    expect(((await next.json()) as Block).content.messages[0]?.text).toBe('Hello again, how can I help?');
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('is idempotent: releasing a contact not in a handoff answers released: false', async () => {
    const { tenantId, adminSecret } = await seedTenant();
    const res = await release(appWith(scriptedModel([])), tenantId, '12345', adminSecret);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ released: false });
  });

  it.each([
    ['no secret', null, 401],
    ['a wrong secret', 'nope', 401],
    ['the webhook secret', 'webhook', 401],
  ] as const)('%s → %i and the contact stays silenced', async (_name, secret, status) => {
    const { tenantId, contactId, app, secret: webhookSecret } = await handedOff();
    const res = await release(app, tenantId, contactId, secret === 'webhook' ? webhookSecret : secret);
    expect(res.status).toBe(status);
    expect(await session().one((r) => r.get(tenantKeys(tenantId).handoff(contactId)))).toBeTruthy();
  });

  it("another tenant's secret cannot release this tenant's contact", async () => {
    const { tenantId, contactId, app } = await handedOff();
    const other = await seedTenant();
    expect((await release(app, tenantId, contactId, other.adminSecret)).status).toBe(401);
    expect(await session().one((r) => r.get(tenantKeys(tenantId).handoff(contactId)))).toBeTruthy();
  });

  it('an unknown tenant → the same 401 as a wrong secret; a contact id that cannot be a key → 400; GET → 404', async () => {
    const app = appWith(scriptedModel([]));
    const unknown = await release(app, 'no-such-tenant-zz', '1', 'x');
    expect(unknown.status).toBe(401);
    const { tenantId: known } = await seedTenant();
    expect(await unknown.json()).toEqual(await (await release(app, known, '1', 'x')).json());
    const { tenantId, adminSecret } = await seedTenant();
    expect((await release(app, tenantId, 'a b', adminSecret)).status).toBe(400);
    const get = await app.fetch(
      new Request(`http://worker.test/v1/tenants/${tenantId}/contacts/1/release`, {
        headers: { authorization: `Bearer ${adminSecret}` },
      }),
    );
    expect(get.status).toBe(404);
  });
});
