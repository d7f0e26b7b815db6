import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { createApp } from '../../src/app.js';
import { deadLetterFor } from '../../outbox/dead-letters.js';
import { markDead } from '../../outbox/ledger.js';
import { parseLedgerRow } from '../../core/storage/outbox-store.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { newContact, sandboxCallsFor, seedTenant, session, uniqueId, workerEnv } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';
import { tenantApi } from './tenant-api.js';

async function dashboardTenant() {
  const t = await seedTenant();
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, 'owner', password);
  const client = new DashboardClient();
  expect((await client.login(t.tenantId, 'owner', password)).status).toBe(303);
  return { ...t, client };
}

const operator = (method: string, path: string) =>
  createApp().fetch(
    new Request(`https://worker.test/v1/operator${path}`, {
      method,
      headers: { authorization: `Bearer ${workerEnv.OPERATOR_SECRET}` },
    }),
    workerEnv,
  );

describe('dashboard users, managed by the operator', () => {
  it('PUT gives a generated password (shown once) that logs in; a second PUT ends the open session; DELETE removes the user', async () => {
    const t = await seedTenant();
    const first = (await (await operator('PUT', `/tenants/${t.tenantId}/dashboard-users/alice`)).json()) as {
      password: string;
      sessionsEnded: number;
    };
    expect(first.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const client = new DashboardClient();
    expect((await client.login(t.tenantId, 'alice', first.password)).status).toBe(303);
    expect((await client.request('GET', '/dashboard/setup')).status).toBe(200);
    const second = (await (await operator('PUT', `/tenants/${t.tenantId}/dashboard-users/alice`)).json()) as {
      password: string;
      sessionsEnded: number;
    };
    expect(second.sessionsEnded).toBe(1);
    expect((await client.request('GET', '/dashboard/setup')).status).toBe(303);
    expect((await new DashboardClient().login(t.tenantId, 'alice', first.password)).status).toBe(401);
    expect((await operator('DELETE', `/tenants/${t.tenantId}/dashboard-users/alice`)).status).toBe(200);
    expect((await new DashboardClient().login(t.tenantId, 'alice', second.password)).status).toBe(401);
    // Without the operator secret: refused; an unknown tenant: 404; a bad name: 400.
    const outsider = await createApp().fetch(
      new Request(`https://worker.test/v1/operator/tenants/${t.tenantId}/dashboard-users/mallory`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.adminSecret}` },
      }),
      workerEnv,
    );
    expect(outsider.status).toBe(401);
    expect((await operator('PUT', '/tenants/no-such-tenant-x/dashboard-users/alice')).status).toBe(404);
    expect((await operator('PUT', `/tenants/${t.tenantId}/dashboard-users/Not%20A%20Name`)).status).toBe(400);
    // The password is stored as a PBKDF2 hash, never in the clear.
    const stored = JSON.stringify(await session().one((r) => r.hgetall(`t:${t.tenantId}:dash:users`)));
    expect(stored).not.toContain(second.password);
  });
});

describe('handoff release and the audit log', () => {
  it("an escalated turn's page releases the contact; the audit log records who did it", async () => {
    const t = await dashboardTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      { reply: reply('Let me get a human.', { escalate: true, reason: 'asked for a human' }) },
    ]);
    const res = await appWith(model).post(t.tenantId, t.secret, {
      contact: { id: contactId },
      text: 'Can I talk to a human?',
    });
    const turnId = res.headers.get('x-turn-id')!;
    expect((await turnRecord(t.tenantId, turnId)).decision).toBe('escalate');
    expect(await session().one((r) => r.exists(tenantKeys(t.tenantId).handoff(contactId)))).toBe(1);
    const { html } = await t.client.page(`/dashboard/turns/${turnId}`);
    const released = await t.client.request(
      'POST',
      `/dashboard/contacts/${contactId}/release`,
      formFields(html, `/dashboard/contacts/${contactId}/release`),
    );
    expect(released.headers.get('location')).toBe(`/dashboard/turns/${turnId}?released=yes`);
    expect(await session().one((r) => r.exists(tenantKeys(t.tenantId).handoff(contactId)))).toBe(0);
    const audit = await t.client.page('/dashboard/audit');
    expect(audit.html).toMatch(/<td>dashboard:owner<\/td><td>handoff\.released<\/td><td>contact \d+<\/td>/);
    expect(audit.html).toContain('<td>dashboard.login</td>');
  });
});

describe('dead letters', () => {
  it('Health lists a dead action with a re-drive button; re-drive performs it at the ManyChat sandbox', async () => {
    const t = await dashboardTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
        reply: reply('A team member will review it.'),
      },
    ]);
    const res = await appWith(model).post(t.tenantId, t.secret, {
      contact: { id: contactId },
      text: 'please remove my interested tag',
    });
    const approvalId = (await turnRecord(t.tenantId, res.headers.get('x-turn-id')!)).approvals[0]!;
    const confirm = await t.client.page(`/dashboard/approvals/${approvalId}/confirm`);
    await t.client.request(
      'POST',
      `/dashboard/approvals/${approvalId}/approve`,
      formFields(confirm.html, `/dashboard/approvals/${approvalId}/approve`),
    );
    const entry = (await outboxEntry(t.tenantId, approvalId))!;
    const action = entry.actions[0]!;
    // What delivery records when ManyChat refuses for good (the ledger's own transition).
    const now = new Date();
    await markDead(
      { session: session(), tenantId: t.tenantId, turnId: approvalId },
      action.id,
      now,
      'ManyChat: subscriber not found',
      deadLetterFor(entry, action, 'dead', 'ManyChat: subscriber not found', now),
    );
    const health = await t.client.page('/dashboard/health');
    expect(health.html).toContain('ManyChat: subscriber not found');
    expect(health.html).toContain('<span class="badge dead">dead</span>');
    const redriven = await t.client.request(
      'POST',
      '/dashboard/dead-letters/redrive',
      formFields(health.html, '/dashboard/dead-letters/redrive'),
    );
    expect(redriven.headers.get('location')).toBe('/dashboard/health?redriven=ok');
    const row = parseLedgerRow(
      await session().one((r) => r.hget(tenantKeys(t.tenantId).ledger(approvalId), action.id)),
    );
    expect(row?.state).toBe('done');
    expect(
      (await sandboxCallsFor(contactId)).filter((c) => c.path.includes('removeTag') && c.status === 200),
    ).toHaveLength(1);
    // Another tenant's entry id posted to this tenant's dashboard finds nothing.
    const other = await dashboardTenant();
    const foreign = await other.client.post('/dashboard/dead-letters/redrive', {
      entryId: approvalId,
      actionId: action.id,
    });
    expect(decodeURIComponent(foreign.headers.get('location')!)).toContain('no outbox entry');
  });

  it('a re-drive from the dashboard re-checks an approved action against the current config: a removed tool is not performed', async () => {
    const t = await dashboardTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
        reply: reply('A team member will review it.'),
      },
    ]);
    const res = await appWith(model).post(t.tenantId, t.secret, {
      contact: { id: contactId },
      text: 'please remove my interested tag',
    });
    const approvalId = (await turnRecord(t.tenantId, res.headers.get('x-turn-id')!)).approvals[0]!;
    const confirm = await t.client.page(`/dashboard/approvals/${approvalId}/confirm`);
    await t.client.request(
      'POST',
      `/dashboard/approvals/${approvalId}/approve`,
      formFields(confirm.html, `/dashboard/approvals/${approvalId}/approve`),
    );
    const entry = (await outboxEntry(t.tenantId, approvalId))!;
    const action = entry.actions[0]!;
    const now = new Date();
    await markDead(
      { session: session(), tenantId: t.tenantId, turnId: approvalId },
      action.id,
      now,
      'ManyChat: busy',
      deadLetterFor(entry, action, 'dead', 'ManyChat: busy', now),
    );
    // The tenant takes the tool away before anyone re-drives it.
    const config = (await (await tenantApi(t.tenantId, t.adminSecret, 'GET', '/config')).json()) as {
      tools: { name: string }[];
      manifest: Record<string, { undo?: string }>;
    };
    const { untag_contact: _gone, ...manifest } = config.manifest;
    const saved = await tenantApi(t.tenantId, t.adminSecret, 'PUT', '/config', {
      ...config,
      tools: config.tools.filter((tool) => tool.name !== 'untag_contact'),
      manifest,
    });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const health = await t.client.page('/dashboard/health');
    const redriven = await t.client.request(
      'POST',
      '/dashboard/dead-letters/redrive',
      formFields(health.html, '/dashboard/dead-letters/redrive'),
    );
    expect(decodeURIComponent(redriven.headers.get('location')!)).toMatch(
      /redriven=re-driven, and dead again: not performed: the tenant's configuration no longer allows it/,
    );
    expect((await sandboxCallsFor(contactId)).filter((c) => c.path.includes('removeTag'))).toEqual([]);
  });

  it("a re-drive whose action dies again says so, with ManyChat's words", async () => {
    const t = await dashboardTenant();
    // A contact ManyChat does not know: the removal is refused for good.
    const contactId = String(Math.floor(1e11 + Math.random() * 1e11));
    const model = scriptedModel([
      {
        calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
        reply: reply('A team member will review it.'),
      },
    ]);
    const res = await appWith(model).post(t.tenantId, t.secret, {
      contact: { id: contactId },
      text: 'please remove my interested tag',
    });
    const approvalId = (await turnRecord(t.tenantId, res.headers.get('x-turn-id')!)).approvals[0]!;
    const confirm = await t.client.page(`/dashboard/approvals/${approvalId}/confirm`);
    await t.client.request(
      'POST',
      `/dashboard/approvals/${approvalId}/approve`,
      formFields(confirm.html, `/dashboard/approvals/${approvalId}/approve`),
    );
    const entry = (await outboxEntry(t.tenantId, approvalId))!;
    const action = entry.actions[0]!;
    const now = new Date();
    await markDead(
      { session: session(), tenantId: t.tenantId, turnId: approvalId },
      action.id,
      now,
      'first refusal',
      deadLetterFor(entry, action, 'dead', 'first refusal', now),
    );
    const health = await t.client.page('/dashboard/health');
    const redriven = await t.client.request(
      'POST',
      '/dashboard/dead-letters/redrive',
      formFields(health.html, '/dashboard/dead-letters/redrive'),
    );
    const said = decodeURIComponent(redriven.headers.get('location')!);
    expect(said).toMatch(/^\/dashboard\/health\?redriven=re-driven, and dead again/);
    const after = await t.client.page(`/dashboard/health?redriven=${encodeURIComponent(said.split('redriven=')[1]!)}`);
    expect(after.html).toContain('Re-drive: re-driven, and dead again');
  });
});
