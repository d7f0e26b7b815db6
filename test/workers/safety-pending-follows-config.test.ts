import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * Pending work follows the tenant's later changes (issue 28 item 2): a Yes or an approval is
 * re-checked against the configuration as it is at the decision, not only the pinned terms.
 */
type Block = {
  content: { messages: { text: string }[]; quick_replies: { caption: string; payload: Record<string, unknown> }[] };
};

describe('a decision re-checks the pinned call against the current configuration', () => {
  it('approval for untag_contact{interested}; the tenant removes the tool and protects the tag; approve → nothing removed, a plain notice', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
        reply: reply('A team member will review removing the tag.'),
      },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: contactId, first_name: 'Ada' },
      text: 'please remove my interested tag',
    });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    const approvalId = record.approvals[0]!;
    expect(approvalId).toMatch(/^ap_/);

    const demo = demoTenantConfig(tenantId);
    const { untag_contact: _removed, ...manifest } = demo.manifest!;
    const saved = await saveTenant(session(), {
      ...demo,
      tools: demo.tools!.filter((t) => t.name !== 'untag_contact'),
      manifest: { ...manifest, tag_contact: { effect: 'write', confirm: 'never' } },
      guardrails: { actions: { protectedTags: ['interested'] } },
    } as typeof demo);
    expect(saved.ok, saved.ok ? '' : saved.problems.join('; ')).toBe(true);

    const approve = await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve`);
    expect(approve.status).toBe(409);
    const body = (await approve.json()) as { error: string };
    expect(body.error).toContain('no longer allows');
    expect(body.error).toContain('untag_contact');
    // Nothing removed: no entry performs the call; the row is refused; the contact is told in plain words.
    expect(await outboxEntry(tenantId, approvalId)).toBeNull();
    expect((await loadPinned(session(), tenantId, approvalId))?.status).toBe('refused');
    const notice = await outboxEntry(tenantId, `${approvalId}.notice`);
    expect(notice?.actions.map((a) => a.kind)).toEqual(['send_content']);
    expect(String(notice?.actions[0]?.args.text)).toBe(
      'This can no longer be done, because the business changed its settings: remove tag "interested". Nothing was changed.',
    );
  });

  it('confirmation for preferred_class=pilates; the tenant drops pilates from the choices; Yes → not set, told why', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        {
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
          reply: reply('Shall I note pilates as your preferred class?'),
        },
      ]),
    );
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const block = (await res.json()) as Block;
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    expect(record.pendingConfirmation).toMatch(/^cf_/);

    const demo = demoTenantConfig(tenantId);
    const saved = await saveTenant(session(), {
      ...demo,
      fields: demo.fields!.map((f) => ({ ...f, choices: ['yoga', 'meditation'] })),
    });
    expect(saved.ok).toBe(true);

    const yes = await app.post(tenantId, null, block.content.quick_replies[0]!.payload);
    expect(yes.headers.get('x-confirmation-outcome')).toBe('refused');
    const answer = (await yes.json()) as Block;
    expect(answer.content.messages[0]?.text).toContain('the business changed its settings');
    expect(answer.content.messages[0]?.text).toContain('Nothing was changed');
    expect(await outboxEntry(tenantId, record.pendingConfirmation!)).toBeNull();
    expect((await loadPinned(session(), tenantId, record.pendingConfirmation!))?.status).toBe('refused');
  });

  it('with the configuration unchanged, the Yes still performs the call', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        {
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
          reply: reply('Shall I note pilates as your preferred class?'),
        },
      ]),
    );
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const block = (await res.json()) as Block;
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    const yes = await app.post(tenantId, null, block.content.quick_replies[0]!.payload);
    expect(yes.headers.get('x-confirmation-outcome')).toBe('confirmed');
    expect((await outboxEntry(tenantId, record.pendingConfirmation!))?.actions.map((a) => a.kind)).toEqual([
      'set_field',
    ]);
  });
});
