import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, workerEnv } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * Rotating SESSION_SECRET through the real app: with the old value kept as SESSION_SECRET_PREVIOUS
 * what it signed is honoured; without it, a pending approval cannot be verified, so it is
 * expired with its contact told — never performed, never left waiting.
 */
const NEXT = 'rotation-test-next-session-secret-0123456789';
const rotating = { ...workerEnv, SESSION_SECRET: NEXT, SESSION_SECRET_PREVIOUS: workerEnv.SESSION_SECRET! };
const rotated = { ...workerEnv, SESSION_SECRET: NEXT };

/** A tenant whose contact asked for a destructive untag: one approval pinned under the current secret. */
async function pendingApproval() {
  const t = await seedTenant();
  const contactId = await newContact();
  const model = scriptedModel([
    { calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }], reply: reply('A team member will look.') },
  ]);
  const res = await appWith(model).post(t.tenantId, t.secret, {
    contact: { id: contactId, first_name: 'Ada' },
    text: 'please remove my interested tag',
  });
  const record = await turnRecord(t.tenantId, res.headers.get('x-turn-id')!);
  expect(record.approvals).toHaveLength(1);
  const approvalId = record.approvals[0]!;
  const status = () => session().one((r) => r.get(tenantKeys(t.tenantId).pinnedStatus(approvalId)));
  return { ...t, approvalId, status };
}

describe('a rotation of SESSION_SECRET', () => {
  it('with the previous secret kept: an approval pinned before it is approved and performed', async () => {
    const t = await pendingApproval();
    const res = await tenantApi(t.tenantId, t.adminSecret, 'POST', `/approvals/${t.approvalId}/approve`, {}, rotating);
    expect(res.status).toBe(200);
    expect(await t.status()).toBe('approved');
    expect((await outboxEntry(t.tenantId, t.approvalId))?.actions.map((a) => a.kind)).toEqual(['remove_tag']);
  });

  it('without it: 409 saying why, nothing performed, the approval expired and its contact told', async () => {
    const t = await pendingApproval();
    const res = await tenantApi(t.tenantId, t.adminSecret, 'POST', `/approvals/${t.approvalId}/approve`, {}, rotated);
    expect(res.status).toBe(409);
    const said = JSON.stringify(await res.json());
    expect(said).toContain('SESSION_SECRET');
    expect(said).toContain('expired and the contact was told');
    expect(await t.status()).toBe('expired');
    expect(await outboxEntry(t.tenantId, t.approvalId)).toBeNull();
    expect((await outboxEntry(t.tenantId, `${t.approvalId}.notice`))?.actions.map((a) => a.kind)).toEqual([
      'send_content',
    ]);
    // A second click: refused the same way, without a second notice.
    const again = await tenantApi(t.tenantId, t.adminSecret, 'POST', `/approvals/${t.approvalId}/approve`, {}, rotated);
    expect(again.status).toBe(409);
    expect(JSON.stringify(await again.json())).not.toContain('contact was told');
  });

  it('the notification secret route shows the previous secret only while the rotation is under way', async () => {
    const t = await seedTenant();
    const before = (await (await tenantApi(t.tenantId, t.adminSecret, 'GET', '/notifications/secret')).json()) as {
      secret: string;
      previousSecret?: string;
    };
    expect(before.previousSecret).toBeUndefined();
    const during = (await (
      await tenantApi(t.tenantId, t.adminSecret, 'GET', '/notifications/secret', undefined, rotating)
    ).json()) as { secret: string; previousSecret?: string };
    expect(during.previousSecret).toBe(before.secret);
    expect(during.secret).not.toBe(before.secret);
    const after = (await (
      await tenantApi(t.tenantId, t.adminSecret, 'GET', '/notifications/secret', undefined, rotated)
    ).json()) as { secret: string; previousSecret?: string };
    expect(after).toMatchObject({ secret: during.secret });
    expect(after.previousSecret).toBeUndefined();
  });
});
