import { describe, expect, it } from 'vitest';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { verifyTerms } from '../../core/pinned-terms.js';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { readAudit } from '../../src/tenants/audit-log.js';
import { deliverOutboxEntry } from '../../outbox/deliver-entry.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { recordingManyChatApi } from '../support/recording-manychat-api.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { newContact, seedTenant, session, uniqueId, workerEnv } from '../support/workers-env.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { tenantApi } from './tenant-api.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/** A tenant with a second removable tag ("vip"), a destructive untag waiting for approval, and a dashboard login. */
async function pendingUntag() {
  const tags = [...(demoTenantConfig().tags ?? []), { name: 'vip', description: 'a member' }];
  const t = await seedTenant({ tags });
  const password = `pw-${uniqueId('p')}`;
  await setDashboardUser(session(), t.tenantId, 'owner', password);
  const contactId = await newContact();
  const model = scriptedModel([
    { calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }], reply: reply('A teammate will review it.') },
  ]);
  const res = await appWith(model).post(t.tenantId, t.secret, {
    contact: { id: contactId },
    text: 'please remove my vip tag',
  });
  const record = await turnRecord(t.tenantId, res.headers.get('x-turn-id')!);
  const approvalId = record.approvals[0]!;
  expect(approvalId).toMatch(/^ap_/);
  const client = new DashboardClient();
  expect((await client.login(t.tenantId, 'owner', password)).status).toBe(303);
  return { ...t, contactId, approvalId, client };
}

const location = (res: Response) => res.headers.get('location') ?? '';

describe('approve with changes', () => {
  it('rejects the original (terms untouched), writes a new pinned row by the approver, performs it once; both audited', async () => {
    const { tenantId, contactId, approvalId, client } = await pendingUntag();
    const before = await loadPinned(session(), tenantId, approvalId);
    expect(before?.status).toBe('pending');

    const list = (await client.page('/dashboard/approvals')).html;
    expect(list).toContain(`href="/dashboard/approvals/${approvalId}/correct"`);
    const form = (await client.page(`/dashboard/approvals/${approvalId}/correct`)).html;
    const fields = formFields(form, `/dashboard/approvals/${approvalId}/correct`);
    expect(fields['arg.tag']).toBe('interested');

    // Refused in plain words, nothing decided: a tag the setup lacks, the handoff tag, no change at all.
    for (const [tag, words] of [
      ['vipp', 'tag &quot;vipp&quot; is not configured'],
      ['human_handoff', 'is the handoff tag'],
      ['interested', 'the same as the pinned ones'],
    ] as const) {
      const refused = await client.post(`/dashboard/approvals/${approvalId}/correct`, { ...fields, 'arg.tag': tag });
      expect(refused.status, tag).toBe(400);
      expect(await refused.text()).toContain(words);
      expect((await loadPinned(session(), tenantId, approvalId))?.status).toBe('pending');
    }

    const done = await client.post(`/dashboard/approvals/${approvalId}/correct`, { ...fields, 'arg.tag': 'vip' });
    expect(done.status).toBe(303);
    expect(location(done)).toBe('/dashboard/approvals?result=corrected');

    // The original: rejected, its stored terms byte-identical, nothing of it performed, the contact not told "rejected".
    const original = await loadPinned(session(), tenantId, approvalId);
    expect(original?.status).toBe('rejected');
    expect(original?.raw).toBe(before!.raw);
    expect(await outboxEntry(tenantId, approvalId)).toBeNull();
    expect(await outboxEntry(tenantId, `${approvalId}.notice`)).toBeNull();

    // The new row: signed, written by the approver, correcting the original, approved with the corrected call.
    const page = (await client.page('/dashboard/approvals')).html;
    const correctedId = /rejected and replaced by (ap_[a-f0-9]{32})/.exec(page)?.[1];
    expect(correctedId).toBeDefined();
    expect(page).toContain(`dashboard:owner, correcting ${approvalId}`);
    const corrected = (await loadPinned(session(), tenantId, correctedId!))!;
    expect(corrected.status).toBe('approved');
    expect(corrected.terms).toMatchObject({
      kind: 'approval',
      authoredBy: 'dashboard:owner',
      corrects: approvalId,
      contactId,
      turnId: before!.terms.turnId,
      pinned: [{ tool: 'untag_contact', args: '{"tag":"vip"}' }],
    });
    expect(await verifyTerms(corrected.terms, workerEnv.SESSION_SECRET!)).toBe(true);
    const entry = (await outboxEntry(tenantId, correctedId!))!;
    expect(entry.actions.map((a) => [a.kind, a.args, a.gate])).toEqual([['remove_tag', { tag: 'vip' }, 'approval']]);

    // Performed once, however often it is delivered; a second correction or approve of either row does nothing.
    const manychat = recordingManyChatApi();
    for (let i = 0; i < 2; i++)
      await deliverOutboxEntry({
        session: session(),
        tenantId,
        turnId: correctedId!,
        apis: { manychat: manychat.api },
      });
    expect(manychat.calls).toEqual([['removeTagByName', contactId, 'vip']]);
    const again = await client.post(`/dashboard/approvals/${approvalId}/correct`, { ...fields, 'arg.tag': 'vip' });
    expect(location(again)).toBe('/dashboard/approvals?result=already-decided');
    const approveOriginal = await client.post(`/dashboard/approvals/${approvalId}/approve`, { confirm: 'yes' });
    expect(location(approveOriginal)).toBe('/dashboard/approvals?result=already-decided');
    expect(await outboxEntry(tenantId, approvalId)).toBeNull();

    // The turn page shows the corrected row's delivery among the turn's.
    const turnPage = (await client.page(`/dashboard/turns/${before!.terms.turnId}`)).html;
    expect(turnPage).toContain(`Outbox entry ${correctedId}`);

    const audit = (await readAudit(session(), tenantId, { offset: 0, limit: 20 })).entries;
    const lines = audit.map((e) => `${e.actor} ${e.action} ${e.detail}`);
    expect(
      lines.some(
        (l) =>
          l.startsWith(`dashboard:owner approval.rejected approval ${approvalId}: rejected for a correction`) &&
          l.includes('{"tag":"interested"}'),
      ),
    ).toBe(true);
    expect(
      lines.some(
        (l) =>
          l.startsWith(
            `dashboard:owner approval.corrected approval ${correctedId}: written by dashboard:owner correcting ${approvalId}`,
          ) && l.includes('{"tag":"vip"}'),
      ),
    ).toBe(true);
  });

  it('two approvers correcting at once: one correction, one performed call', async () => {
    const { tenantId, approvalId, client, adminSecret } = await pendingUntag();
    const [a, b] = await Promise.all([
      tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve-with-changes`, {
        args: { tag: 'vip' },
      }),
      client.post(`/dashboard/approvals/${approvalId}/correct`, { confirm: 'yes', 'arg.tag': 'vip' }),
    ]);
    const apiWon = a.status === 200;
    const dashWon = location(b) === '/dashboard/approvals?result=corrected';
    expect([apiWon, dashWon].filter(Boolean)).toHaveLength(1);
    if (!apiWon) expect(a.status).toBe(409);
    else {
      const body = (await a.json()) as { result: string; correctedId: string };
      expect(body.result).toBe('approved');
      expect((await loadPinned(session(), tenantId, body.correctedId))?.terms.authoredBy).toBe('admin');
    }
    const audit = (await readAudit(session(), tenantId, { offset: 0, limit: 20 })).entries;
    expect(audit.filter((e) => e.action === 'approval.corrected')).toHaveLength(1);
  });

  it('the API refuses arguments that do not fit the action or the config, with the problem named', async () => {
    const { tenantId, approvalId, adminSecret } = await pendingUntag();
    const wrongShape = await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve-with-changes`, {
      args: { tag: 42 },
    });
    expect(wrongShape.status).toBe(400);
    expect(((await wrongShape.json()) as { error: string }).error).toContain('do not fit this action');
    const unknownTag = await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve-with-changes`, {
      args: { tag: 'nope' },
    });
    expect(unknownTag.status).toBe(400);
    expect(((await unknownTag.json()) as { error: string }).error).toContain('tag "nope" is not configured');
    expect((await loadPinned(session(), tenantId, approvalId))?.status).toBe('pending');
  });
});
