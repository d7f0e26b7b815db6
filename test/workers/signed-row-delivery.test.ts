import { describe, expect, it } from 'vitest';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { createApp } from '../../src/app.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { readAudit } from '../../src/tenants/audit-log.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { newContact, seedTenant, session, workerEnv } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * Delivery re-verifies the signed row it executes (ADR-0118 §2) and an executed approval leaves an
 * audit row (§6), through the real app: QStash's signed delivery, ManyChat's API caught at fetch.
 */
function appCatchingManyChat() {
  const manychat: { path: string; body: unknown }[] = [];
  const model = scriptedModel([
    { calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }], reply: reply('A teammate will review it.') },
  ]);
  const app = createApp((s) => ({
    ...s,
    model: () => ({ model, modelId: 'scripted-model', offline: false }),
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.url.startsWith(workerEnv.MANYCHAT_API_URL!)) {
        manychat.push({
          path: request.url.slice(workerEnv.MANYCHAT_API_URL!.replace(/\/$/, '').length),
          body: await request.json(),
        });
        return Response.json({ status: 'success' });
      }
      return fetch(request);
    },
  }));
  const call = async (request: Request, env: Record<string, string> = workerEnv) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, env, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  return { manychat, call };
}

/** An untag approved by the tenant: its outbox entry waits for QStash's delivery. */
async function approvedUntag() {
  const t = await seedTenant();
  const { manychat, call } = appCatchingManyChat();
  const res = await call(
    new Request(`http://worker.test/v1/manychat/${t.tenantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-staged-agent-secret': t.secret },
      body: JSON.stringify({ contact: { id: await newContact() }, text: 'please remove my interested tag' }),
    }),
  );
  const record = await turnRecord(t.tenantId, res.headers.get('x-turn-id')!);
  const approvalId = record.approvals[0]!;
  expect((await tenantApi(t.tenantId, t.adminSecret, 'POST', `/approvals/${approvalId}/approve`, {})).status).toBe(200);
  const deliver = async (entryId = approvalId, env: Record<string, string> = workerEnv) => {
    const body = JSON.stringify({ tenantId: t.tenantId, turnId: entryId });
    const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/outbox/deliver`;
    const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body });
    const answer = await call(
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Upstash-Signature': signature },
        body,
      }),
      env,
    );
    return (await answer.json()) as { actions: { id: string; state: string; detail?: string }[] };
  };
  const rewriteEntry = async (id: string, change: (e: OutboxEntry) => OutboxEntry) => {
    const entry = (await outboxEntry(t.tenantId, approvalId))!;
    await session().one((r) => r.set(tenantKeys(t.tenantId).outbox(id), JSON.stringify(change(entry))));
  };
  const executions = async () =>
    (await readAudit(session(), t.tenantId, { offset: 0, limit: 50 })).entries.filter(
      (e) => e.action === 'approval.executed',
    );
  return { ...t, approvalId, manychat, deliver, rewriteEntry, executions };
}

describe('the delivery of an approved call', () => {
  it('performs the signed call once and audits it once: approval id, result, undo', async () => {
    const t = await approvedUntag();
    const delivered = await t.deliver();
    expect(delivered.actions.map((a) => a.state)).toEqual(['done']);
    expect(t.manychat.map((c) => c.path)).toEqual(['/fb/subscriber/removeTagByName']);
    const audit = await t.executions();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: 'system:delivery' });
    expect(audit[0]!.detail).toBe(`approval ${t.approvalId}: untag_contact (remove_tag) done; undo with tag_contact`);
    // QStash delivers it again: nothing performed or audited twice.
    await t.deliver();
    expect(t.manychat).toHaveLength(1);
    expect(await t.executions()).toHaveLength(1);
  });

  it('an entry changed in storage after the approval is not performed: dead, saying why, and audited as such', async () => {
    const t = await approvedUntag();
    await t.rewriteEntry(t.approvalId, (e) => ({
      ...e,
      actions: e.actions.map((a) => ({ ...a, args: { ...a.args, tag: 'vip' } })),
    }));
    const delivered = await t.deliver();
    expect(delivered.actions.map((a) => a.state)).toEqual(['dead']);
    expect(delivered.actions[0]!.detail).toContain(`not a call its approval ${t.approvalId} signed`);
    expect(t.manychat).toEqual([]);
    expect((await t.executions())[0]!.detail).toContain('untag_contact (remove_tag) dead (not performed');
  });

  it('a gated call in an entry no pending row stands behind is not performed', async () => {
    const t = await approvedUntag();
    const forged = `${t.approvalId}x`;
    await t.rewriteEntry(forged, (e) => ({ ...e, turnId: forged }));
    const delivered = await t.deliver(forged);
    expect(delivered.actions.map((a) => a.state)).toEqual(['dead']);
    expect(delivered.actions[0]!.detail).toContain('a gated action with no pending row behind it');
    expect(t.manychat).toEqual([]);
  });

  it('after a rotation of SESSION_SECRET: performed while the previous secret is kept; without it, dead', async () => {
    const kept = await approvedUntag();
    const NEXT = 'rotation-delivery-next-session-secret-0123456789';
    const rotating = { ...workerEnv, SESSION_SECRET: NEXT, SESSION_SECRET_PREVIOUS: workerEnv.SESSION_SECRET! };
    expect((await kept.deliver(kept.approvalId, rotating)).actions.map((a) => a.state)).toEqual(['done']);
    const lost = await approvedUntag();
    const delivered = await lost.deliver(lost.approvalId, { ...workerEnv, SESSION_SECRET: NEXT });
    expect(delivered.actions.map((a) => a.state)).toEqual(['dead']);
    expect(delivered.actions[0]!.detail).toContain('does not verify');
    expect(lost.manychat).toEqual([]);
  });
});
