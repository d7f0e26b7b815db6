import { stageConfig } from '../support/turn-stage.js';
import { describe, expect, it } from 'vitest';
import { pinGatedActions } from '../../src/approvals/create-pinned.js';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { writeTurnCommit } from '../../outbox/commit.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, session, workerEnv } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';

/**
 * One pending row per contact and call. The reproduction: a contact typed "yes" instead of
 * pressing the button; the model staged the same choice again; a second confirmation was created,
 * and pressing Yes on both performed it twice.
 */
type Block = { content: { quick_replies: { caption: string; payload: Record<string, unknown> }[] } };
const pilates = { tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } };

describe('one pending row per contact and call', () => {
  it('a typed "yes" that stages the same call again reuses the pending row: its buttons, no second row; Yes performs once', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      { calls: [pilates], reply: reply('Shall I note pilates as your preferred class?') },
      { calls: [pilates], reply: reply('Great, please confirm with the button.') },
    ]);
    const app = appWith(model);
    const first = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const firstBlock = (await first.json()) as Block;
    const firstRecord = await turnRecord(tenantId, first.headers.get('x-turn-id')!);
    const second = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'yes' });
    const secondBlock = (await second.json()) as Block;
    const secondRecord = await turnRecord(tenantId, second.headers.get('x-turn-id')!);

    expect(firstRecord.pendingConfirmation).toMatch(/^cf_/);
    expect(secondRecord.pendingConfirmation).toBe(firstRecord.pendingConfirmation);
    expect(secondRecord.notes.join(' ')).toContain(`already waiting in ${firstRecord.pendingConfirmation}`);
    expect(secondBlock.content.quick_replies.map((q) => q.payload)).toEqual(
      firstBlock.content.quick_replies.map((q) => q.payload),
    );

    expect(
      (await app.post(tenantId, null, secondBlock.content.quick_replies[0]!.payload)).headers.get(
        'x-confirmation-outcome',
      ),
    ).toBe('confirmed');
    expect(
      (await app.post(tenantId, null, firstBlock.content.quick_replies[0]!.payload)).headers.get(
        'x-confirmation-outcome',
      ),
    ).toBe('already-answered');
    expect((await outboxEntry(tenantId, firstRecord.pendingConfirmation!))?.actions).toHaveLength(1);
  });

  it('once answered, the same call may be asked for afresh: a new row', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        { calls: [pilates], reply: reply('Confirm?') },
        { calls: [pilates], reply: reply('Confirm again?') },
      ]),
    );
    const first = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const block = (await first.json()) as Block;
    await app.post(tenantId, null, block.content.quick_replies[1]!.payload); // No
    const second = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'actually yes, pilates' });
    const [r1, r2] = [
      await turnRecord(tenantId, first.headers.get('x-turn-id')!),
      await turnRecord(tenantId, second.headers.get('x-turn-id')!),
    ];
    expect(r2.pendingConfirmation).toMatch(/^cf_/);
    expect(r2.pendingConfirmation).not.toBe(r1.pendingConfirmation);
  });

  it('two rows for one call created concurrently: only the one that owns the call performs it; the other is superseded', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(scriptedModel([{ calls: [pilates], reply: reply('Confirm?') }]));
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const record = await turnRecord(tenantId, res.headers.get('x-turn-id')!);
    const owner = (await loadPinned(session(), tenantId, record.pendingConfirmation!))!;
    // A second row for the same call, written as a concurrent turn's commit would (its index SET NX loses).
    const inbound = { ...record.inbound, messageKey: 'other' };
    const rival = await pinGatedActions({
      turnId: 'turn_rival',
      inbound,
      staged: owner.terms.actions,
      manifest: {},
      secret: workerEnv.SESSION_SECRET!,
      now: new Date(),
    });
    const rivalRecord = { ...record, turnId: 'turn_rival', messageKey: 'other' };
    expect(
      await writeTurnCommit(session(), {
        record: rivalRecord,
        entry: null,
        history: [],
        historyLimit: 10,
        handoffUntil: null,
        pinned: [rival.confirmation!],
      }),
    ).toBe(true);
    const { answerConfirmation } = await import('../../src/approvals/answer-confirmation.js');
    const deps = {
      session: session(),
      publisher: { publish: async () => {} },
      pinSecret: workerEnv.SESSION_SECRET!,
      now: new Date(),
      config: stageConfig(),
    };
    const rivalYes = await answerConfirmation(deps, {
      tenantId,
      contactId,
      pendingId: rival.confirmation!.id,
      answer: 'yes',
      nonce: rival.confirmation!.nonce,
    });
    expect(rivalYes.outcome).toBe('already-answered');
    expect((await loadPinned(session(), tenantId, rival.confirmation!.id))?.status).toBe('superseded');
    expect(await outboxEntry(tenantId, rival.confirmation!.id)).toBeNull();
    const ownerYes = await answerConfirmation(deps, {
      tenantId,
      contactId,
      pendingId: owner.terms.id,
      answer: 'yes',
      nonce: owner.terms.nonce,
    });
    expect(ownerYes.outcome).toBe('confirmed');
    expect((await outboxEntry(tenantId, owner.terms.id))?.actions).toHaveLength(1);
  });
});

describe('a pending row is reused only for a call whose current gate matches its kind', () => {
  it('a live confirmation is not reused once the tenant puts the call behind an approval: the old row is superseded, an approval row made', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        { calls: [pilates], reply: reply('Shall I note pilates as your preferred class?') },
        { calls: [pilates], reply: reply('I have asked for pilates to be noted.') },
      ]),
    );
    const first = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const firstBlock = (await first.json()) as Block;
    const firstRecord = await turnRecord(tenantId, first.headers.get('x-turn-id')!);
    expect(firstRecord.pendingConfirmation).toMatch(/^cf_/);

    // The tenant re-gates record_choice: an approval now, not a contact's Yes.
    const demo = demoTenantConfig(tenantId);
    const saved = await saveTenant(session(), {
      ...demo,
      manifest: { ...demo.manifest, record_choice: { effect: 'write', approval: 'pinned' } },
    });
    expect(saved.ok).toBe(true);

    const second = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'pilates, please' });
    const secondBlock = (await second.json()) as Partial<Block>;
    const secondRecord = await turnRecord(tenantId, second.headers.get('x-turn-id')!);
    expect(secondRecord.pendingConfirmation).toBeNull();
    expect(secondRecord.approvals).toHaveLength(1);
    expect(secondRecord.approvals[0]).toMatch(/^ap_/);
    expect(secondBlock.content?.quick_replies ?? []).toEqual([]);
    expect((await loadPinned(session(), tenantId, secondRecord.approvals[0]!))?.status).toBe('pending');

    // The old Yes performs nothing: its row was superseded by the approval.
    expect((await loadPinned(session(), tenantId, firstRecord.pendingConfirmation!))?.status).toBe('superseded');
    const yes = await app.post(tenantId, null, firstBlock.content.quick_replies[0]!.payload);
    expect(yes.headers.get('x-confirmation-outcome')).toBe('already-answered');
    expect(await outboxEntry(tenantId, firstRecord.pendingConfirmation!)).toBeNull();
  });

  it('an approval row is not reused once the tenant lowers the call to a confirmation: a confirmation row with buttons', async () => {
    const demo = demoTenantConfig('unused');
    const { tenantId, secret } = await seedTenant({
      manifest: { ...demo.manifest, record_choice: { effect: 'write', approval: 'pinned' } },
    });
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        { calls: [pilates], reply: reply('Shall I note pilates as your preferred class?') },
        { calls: [pilates], reply: reply('Shall I note pilates as your preferred class?') },
      ]),
    );
    const first = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer pilates' });
    const firstRecord = await turnRecord(tenantId, first.headers.get('x-turn-id')!);
    expect(firstRecord.approvals).toHaveLength(1);
    expect((await saveTenant(session(), { ...demoTenantConfig(tenantId) })).ok).toBe(true);
    const second = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'pilates, please' });
    const secondBlock = (await second.json()) as Block;
    const secondRecord = await turnRecord(tenantId, second.headers.get('x-turn-id')!);
    expect(secondRecord.approvals).toEqual([]);
    expect(secondRecord.pendingConfirmation).toMatch(/^cf_/);
    expect(secondBlock.content.quick_replies).toHaveLength(2);
    expect((await loadPinned(session(), tenantId, firstRecord.approvals[0]!))?.status).toBe('superseded');
  });
});
