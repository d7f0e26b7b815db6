import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { REST_ENTRY } from '../../core/tenant/tool-order.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

const offeredTools = (model: ReturnType<typeof scriptedModel>) =>
  (model.doGenerateCalls[0]?.tools ?? []).map((t) => t.name);

describe('the registry enforces the manifest', () => {
  it('an undeclared tool is not registered: the turn runs without it and the refusal is recorded', async () => {
    const demo = demoTenantConfig();
    const manifest = { ...demo.manifest } as Record<string, unknown>;
    delete manifest.lookup_contact;
    const { tenantId, secret, adminSecret } = await seedTenant({ manifest: manifest as typeof demo.manifest });
    const model = scriptedModel([{ reply: reply('Hi!') }]);
    const res = await appWith(model).post(tenantId, secret, { contact: { id: await newContact() }, text: 'hello' });
    expect(offeredTools(model)).not.toContain('lookup_contact');
    expect(offeredTools(model)).toContain('send_media');
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    expect(record.notes.join(' ')).toContain(
      `tool "lookup_contact" is not declared in tenant "${tenantId}"'s manifest`,
    );
    const drift = (await (await tenantApi(tenantId, adminSecret, 'GET', '/manifest')).json()) as {
      drift: { registeredNotDeclared: string[]; declaredNotRegistered: string[] };
    };
    expect(drift.drift.registeredNotDeclared).toEqual(['lookup_contact']);
  });

  it('a declared tool that was never registered is reported as drift', async () => {
    const demo = demoTenantConfig();
    const { tenantId, secret, adminSecret } = await seedTenant({
      manifest: { ...demo.manifest, send_voucher: { effect: 'write', confirm: 'never' } },
    });
    const drift = (await (await tenantApi(tenantId, adminSecret, 'GET', '/manifest')).json()) as {
      drift: { declaredNotRegistered: string[] };
    };
    expect(drift.drift.declaredNotRegistered).toEqual(['send_voucher']);
  });

  it('a kind declared with the wrong effect is refused (a read tool declared write)', async () => {
    const demo = demoTenantConfig();
    const { tenantId, secret, adminSecret } = await seedTenant({
      manifest: { ...demo.manifest, search_faq: { effect: 'write', confirm: 'never' } },
    });
    const model = scriptedModel([{ reply: reply('Hi!') }]);
    const res = await appWith(model).post(tenantId, secret, { contact: { id: await newContact() }, text: 'hello' });
    expect(offeredTools(model)).not.toContain('search_faq');
    expect((await turnRecord(tenantId, res.headers.get('x-turn-id')!)).notes.join(' ')).toContain(
      'only reads, but its manifest declares effect write',
    );
  });

  it("the prompt marks writes and carries each tool's guidance from the manifest", async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const model = scriptedModel([{ reply: reply('Hi!') }]);
    await appWith(model).post(tenantId, secret, { contact: { id: await newContact() }, text: 'hello' });
    const system = JSON.stringify(model.doGenerateCalls[0]?.prompt[0]);
    expect(system).toContain('send_media [write: stages an action]');
    expect(system).toContain("record_choice [write: stages an action; needs the contact's confirmation]");
    expect(system).toContain("untag_contact [destructive: stages an action; needs a team member's approval]");
    expect(system).toContain('search_faq [read: returns data]');
    expect(system).toContain('Search the FAQ before answering questions about the studio.');
  });
});

describe('canonical tool order reaches the model', () => {
  it('the tool list is byte-identical whatever order the tenant registered tools in, across app restarts', async () => {
    const demo = demoTenantConfig();
    const a = await seedTenant();
    const b = await seedTenant({ tools: [...(demo.tools ?? [])].reverse() });
    const m1 = scriptedModel([{ reply: reply('Hi!') }]);
    const m2 = scriptedModel([{ reply: reply('Hi!') }]);
    await appWith(m1).post(a.tenantId, a.secret, { contact: { id: await newContact() }, text: 'hello' });
    await appWith(m2).post(b.tenantId, b.secret, { contact: { id: await newContact() }, text: 'hello' });
    expect(JSON.stringify(m1.doGenerateCalls[0]?.tools)).toBe(JSON.stringify(m2.doGenerateCalls[0]?.tools));
    expect(offeredTools(m1)).toEqual([
      'lookup_contact',
      'record_choice',
      'reply',
      'search_faq',
      'send_media',
      'tag_contact',
      'untag_contact',
    ]);
  });

  it('a tenant toolOrder with the rest entry is applied', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant({ toolOrder: ['reply', REST_ENTRY, 'lookup_contact'] });
    const model = scriptedModel([{ reply: reply('Hi!') }]);
    await appWith(model).post(tenantId, secret, { contact: { id: await newContact() }, text: 'hello' });
    expect(offeredTools(model)).toEqual([
      'reply',
      'record_choice',
      'search_faq',
      'send_media',
      'tag_contact',
      'untag_contact',
      'lookup_contact',
    ]);
  });

  it('an invalid toolOrder is refused when saved', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const bad = { ...demoTenantConfig(tenantId), toolOrder: ['nope', 'reply'] };
    const res = await tenantApi(tenantId, adminSecret, 'PUT', '/config', bad);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: string[] };
    expect(body.details).toContain('toolOrder names "nope", which is not a tool');
    expect(body.details.join(' ')).toContain(`"${REST_ENTRY}" exactly once`);
  });

  it('an invalid toolOrder that reaches prompt assembly fails the turn cleanly: error, fallback, nothing staged, no model call', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const stored = { ...demoTenantConfig(tenantId), toolOrder: ['nope', REST_ENTRY] };
    // Bypass validation, as a stale or hand-edited config would.
    await session().one((r) => r.set(tenantKeys(tenantId).config, JSON.stringify(stored)));
    const model = scriptedModel([
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending it.') },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'brochure please',
    });
    expect(res.status).toBe(200);
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('error');
    expect(record.decisionReason).toContain('toolOrder names "nope"');
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(record.staged).toEqual([]);
    expect(await outboxEntry(tenantId, record.turnId)).toBeNull();
    expect(((await res.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toMatch(
      /Sorry/,
    );
  });
});

describe('answers_directly: the tool output is the reply', () => {
  it("a FAQ hit ends the turn after one model call with the entry's answer", async () => {
    const demo = demoTenantConfig();
    const { tenantId, secret, adminSecret } = await seedTenant({
      manifest: { ...demo.manifest, search_faq: { effect: 'read', answers_directly: true } },
    });
    const model = scriptedModel([
      { calls: [{ tool: 'search_faq', input: { query: 'opening hours' } }] },
      { reply: reply('never needed') },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'what are your opening hours?',
    });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(((await res.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toBe(
      'We are open Monday to Saturday, 7:00 to 21:00.',
    );
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.decision).toBe('pass');
    // The model gave no reply of its own: the record says so; the notes say who answered.
    expect(record.modelReply).toBeNull();
    expect(record.notes).toContain('answered directly by search_faq');
  });

  it('no FAQ hit is not an answer: the model reads it and replies in a second call', async () => {
    const demo = demoTenantConfig();
    const { tenantId, secret, adminSecret } = await seedTenant({
      manifest: { ...demo.manifest, search_faq: { effect: 'read', answers_directly: true } },
    });
    const model = scriptedModel([
      { calls: [{ tool: 'search_faq', input: { query: 'helicopter landing' } }] },
      { reply: reply('I do not know that one.') },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'can I land a helicopter?',
    });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(((await res.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toBe(
      'I do not know that one.',
    );
  });

  it('a kind with no contact-readable output cannot be declared answers_directly: refused at registration', async () => {
    const demo = demoTenantConfig();
    const { tenantId, secret, adminSecret } = await seedTenant({
      manifest: { ...demo.manifest, lookup_contact: { effect: 'read', answers_directly: true } },
    });
    const model = scriptedModel([{ reply: reply('Hi!') }]);
    const res = await appWith(model).post(tenantId, secret, { contact: { id: await newContact() }, text: 'hello' });
    expect(offeredTools(model)).not.toContain('lookup_contact');
    expect((await turnRecord(tenantId, res.headers.get('x-turn-id')!)).notes.join(' ')).toContain(
      'cannot answer directly',
    );
  });
});

describe('typed results decide the one-call ending', () => {
  it('a tool result that is not `staged` (a read) forces the second call even when the model replied', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const model = scriptedModel([
      { calls: [{ tool: 'lookup_contact', input: {} }], reply: reply('Replying before reading.') },
      { reply: reply('Now with the data.') },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: await newContact() },
      text: 'what do you know about me',
    });
    expect(model.doGenerateCalls).toHaveLength(2);
    const body = (await res.json()) as { content: { messages: { text: string }[] } };
    expect(body.content.messages[0]?.text).toBe('Now with the data.');
  });
});
