import { describe, expect, it } from 'vitest';
import { buildOutboxEntry, type OutboxEntry } from '../../core/outbox-entry.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { gatedAction, overwriteTerms, pinnedFixture } from '../../test/support/pinned-fixtures.js';
import { PIN_SECRET } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { checkSignedRow } from './signed-row-check.js';

/**
 * Delivery's re-check of the signed row behind an entry's gated actions (the end-to-end path is
 * test/workers/signed-row-delivery.test.ts): these run in Node, so the mutation run measures it.
 */
const entryFor = (
  terms: PinnedTerms,
  actions: StagedAction[] = terms.actions,
  contactId = terms.contactId,
): OutboxEntry =>
  buildOutboxEntry({
    entryId: terms.id,
    tenantId: terms.tenantId,
    channel: terms.channel,
    contactId,
    actions,
    now: new Date(),
  });

const setStatus = (terms: PinnedTerms, status: string) =>
  session().one((r) => r.set(tenantKeys(terms.tenantId).pinnedStatus(terms.id), status));

async function approvalRow(status = 'approved') {
  const fixture = await pinnedFixture([gatedAction('vip', 'approval')]);
  const terms = fixture.approvals[0]!;
  await setStatus(terms, status);
  return terms;
}

async function confirmationRow(status = 'confirmed') {
  const fixture = await pinnedFixture([gatedAction('vip', 'confirm')]);
  const terms = fixture.confirmation!;
  await setStatus(terms, status);
  return terms;
}

const ungated = (a: StagedAction): StagedAction => ({ ...a, id: `${a.id}_free`, gate: 'none' });

describe('checkSignedRow: delivery re-verifies the signed row it executes', () => {
  it('an approved row, verified, holding exactly the call, for this contact: every action may be performed', async () => {
    const terms = await approvalRow();
    const entry = entryFor(terms);
    const check = await checkSignedRow(session(), PIN_SECRET, entry);
    expect(check.row?.terms).toEqual(terms);
    expect(check.row?.status).toBe('approved');
    expect(entry.actions.map(check.refuse)).toEqual([null]);
  });

  it('a confirmed confirmation too; under the previous secret during a rotation too', async () => {
    const terms = await confirmationRow();
    const entry = entryFor(terms);
    expect(entry.actions.map((await checkSignedRow(session(), PIN_SECRET, entry)).refuse)).toEqual([null]);
    const rotated = { current: 'the-secret-after-the-rotation', previous: PIN_SECRET };
    expect(entry.actions.map((await checkSignedRow(session(), rotated, entry)).refuse)).toEqual([null]);
  });

  it('a row of several calls: each of them may be performed, and only they', async () => {
    const fixture = await pinnedFixture([gatedAction('vip', 'confirm'), gatedAction('gold', 'confirm')]);
    const terms = fixture.confirmation!;
    await setStatus(terms, 'confirmed');
    expect(terms.actions).toHaveLength(2);
    const check = await checkSignedRow(session(), PIN_SECRET, entryFor(terms));
    expect(terms.actions.map(check.refuse)).toEqual([null, null]);
    expect(check.refuse({ ...terms.actions[0]!, args: terms.actions[1]!.args })).toBe(
      `it is not a call its confirmation ${terms.id} signed`,
    );
  });

  it('an entry with no gated action reads no row: nothing to refuse (a system call is not gated, whatever its gate)', async () => {
    const terms = await approvalRow();
    const free = terms.actions.map(ungated);
    const system: StagedAction = { ...terms.actions[0]!, id: 'a_system', tool: 'system:handoff', gate: 'approval' };
    for (const actions of [free, [system], [...free, system]]) {
      const check = await checkSignedRow(session(), PIN_SECRET, entryFor(terms, actions));
      expect(check.row).toBeNull();
      expect(actions.map(check.refuse)).toEqual(actions.map(() => null));
    }
  });

  it('a gated action with no row behind it is refused; an ungated one beside it is not', async () => {
    const terms = await approvalRow();
    const gated = terms.actions[0]!;
    const entry = { ...entryFor(terms, [gated, ungated(gated)]), turnId: 'ap_never_pinned' };
    const check = await checkSignedRow(session(), PIN_SECRET, entry);
    expect(check.row).toBeNull();
    expect(entry.actions.map(check.refuse)).toEqual(['a gated action with no pending row behind it', null]);
  });

  it('a row changed in storage, or signed under a secret this Worker no longer holds, does not verify', async () => {
    const terms = await approvalRow();
    const entry = entryFor(terms, [...terms.actions, ungated(terms.actions[0]!)]);
    const why = `its approval ${terms.id} does not verify (changed in storage, or signed under a SESSION_SECRET this Worker no longer holds)`;
    const unknownSecret = await checkSignedRow(session(), 'another-secret', entry);
    expect(unknownSecret.row?.terms.id).toBe(terms.id);
    expect(entry.actions.map(unknownSecret.refuse)).toEqual([why, null]);
    await overwriteTerms({ ...terms, card: 'something else' });
    expect(entry.actions.map((await checkSignedRow(session(), PIN_SECRET, entry)).refuse)).toEqual([why, null]);
  });

  it('a row not decided for it is refused: pending, rejected; a confirmation approved is not confirmed', async () => {
    for (const status of ['pending', 'rejected', 'confirmed']) {
      const terms = await approvalRow(status);
      const check = await checkSignedRow(session(), PIN_SECRET, entryFor(terms));
      expect(check.refuse(terms.actions[0]!)).toBe(`its approval ${terms.id} is ${status}, not approved`);
    }
    const confirmation = await confirmationRow('approved');
    const check = await checkSignedRow(session(), PIN_SECRET, entryFor(confirmation));
    expect(check.refuse(confirmation.actions[0]!)).toBe(
      `its confirmation ${confirmation.id} is approved, not confirmed`,
    );
  });

  it('a call the row did not sign is refused: another id, tool, kind or arguments', async () => {
    const terms = await approvalRow();
    const signed = terms.actions[0]!;
    const others: StagedAction[] = [
      { ...signed, id: 'a_other' },
      { ...signed, tool: 'tag_contact' },
      { ...signed, kind: 'add_tag' },
      { ...signed, args: { tag: 'interested' } },
      { ...signed, args: { ...signed.args, extra: 1 } },
    ];
    const check = await checkSignedRow(session(), PIN_SECRET, entryFor(terms, [signed, ...others]));
    expect(others.map(check.refuse)).toEqual(others.map(() => `it is not a call its approval ${terms.id} signed`));
  });

  it("another contact's entry is refused, even for exactly the signed call", async () => {
    const terms = await approvalRow();
    const entry = entryFor(terms, terms.actions, `${terms.contactId}_other`);
    const check = await checkSignedRow(session(), PIN_SECRET, entry);
    expect(check.refuse(terms.actions[0]!)).toBe(`its approval ${terms.id} is another contact's`);
    expect(check.refuse(ungated(terms.actions[0]!))).toBeNull();
  });
});
