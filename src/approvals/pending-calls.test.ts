import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../core/canonical-json.js';
import { signTerms, type PinnedTerms } from '../../core/pinned-terms.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { gatedAction, overwriteTerms, pinnedFixture, savePinned } from '../../test/support/pinned-fixtures.js';
import { PIN_SECRET } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { livePendingRows, pendingRowsFor } from './pending-calls.js';

/** One pending confirmation for `add tag "news"`, saved as a passing turn saves it. */
async function savedConfirmation() {
  const action = gatedAction('news', 'confirm');
  const fixture = await pinnedFixture([action]);
  const row = fixture.confirmation!;
  const find = (actions = [action], opts: { contactId?: string; secret?: string; now?: Date } = {}) =>
    livePendingRows({
      session: session(),
      tenantId: row.tenantId,
      contactId: opts.contactId ?? row.contactId,
      actions,
      secret: opts.secret ?? PIN_SECRET,
      now: opts.now ?? fixture.now,
    });
  return { action, row, find, now: fixture.now };
}

describe('livePendingRows: one pending row per contact and call', () => {
  it('nothing staged: nothing found', async () => {
    expect(
      (
        await livePendingRows({
          session: session(),
          tenantId: 'tnone',
          contactId: '1',
          actions: [],
          secret: PIN_SECRET,
          now: new Date(),
        })
      ).size,
    ).toBe(0);
  });

  it("the same call again finds the contact's live row, keyed by the new action's id", async () => {
    const { action, row, find } = await savedConfirmation();
    const again = { ...action, id: 'a_again' };
    const found = await find([again]);
    expect([...found.keys()]).toEqual(['a_again']);
    expect(found.get('a_again')).toEqual(row);
  });

  it('the same call with its arguments in another key order is the same call', async () => {
    const action = gatedAction('multi', 'confirm', { tag: 'multi', note: { b: 1, a: 2 } });
    const { confirmation, now } = await pinnedFixture([action]);
    const reordered = { ...action, id: 'a_reordered', args: { note: { a: 2, b: 1 }, tag: 'multi' } };
    const found = await livePendingRows({
      session: session(),
      tenantId: confirmation!.tenantId,
      contactId: confirmation!.contactId,
      actions: [reordered],
      secret: PIN_SECRET,
      now,
    });
    expect(found.get('a_reordered')?.id).toBe(confirmation!.id);
  });

  it('another call, or the same call for another contact, finds nothing', async () => {
    const { action, find } = await savedConfirmation();
    expect((await find([{ ...action, args: { tag: 'other' } }])).size).toBe(0);
    expect((await find([action], { contactId: '999999999999' })).size).toBe(0);
  });

  it('of several actions, only those with a live row are found', async () => {
    const { action, find } = await savedConfirmation();
    const other = gatedAction('other', 'confirm');
    const found = await find([other, action]);
    expect([...found.keys()]).toEqual([action.id]);
  });

  it('an expired row is not live (at the expiry instant too)', async () => {
    const { action, row, find } = await savedConfirmation();
    expect((await find([action], { now: new Date(row.expiresAt) })).size).toBe(0);
    expect((await find([action], { now: new Date(Date.parse(row.expiresAt) - 1) })).size).toBe(1);
  });

  it('a decided row is not live', async () => {
    const { action, row, find } = await savedConfirmation();
    await session().one((r) => r.set(tenantKeys(row.tenantId).pinnedStatus(row.id), 'confirmed'));
    expect((await find([action])).size).toBe(0);
  });

  it("terms that do not verify (another secret, changed behind the code's back) are not live", async () => {
    const { action, row, find } = await savedConfirmation();
    expect((await find([action], { secret: 'another-secret' })).size).toBe(0);
    await overwriteTerms({ ...row, card: 'tampered' });
    expect((await find([action])).size).toBe(0);
  });

  it("terms signed for another contact or tenant are not this contact's row", async () => {
    for (const change of [{ contactId: '42' }, { tenantId: 'tother' }]) {
      const { action, row, find } = await savedConfirmation();
      const { sig: _sig, pinned: _pinned, callDigests: _digests, ...unsigned } = row;
      const resigned = await signTerms({ ...unsigned, ...change }, PIN_SECRET);
      // Stored under this contact's row id, where the code will look.
      await session().one((r) => r.set(tenantKeys(row.tenantId).pinnedTerms(row.id), JSON.stringify(resigned)));
      expect((await find([action])).size, JSON.stringify(change)).toBe(0);
    }
  });

  it('unreadable terms are not live', async () => {
    const { action, row, find } = await savedConfirmation();
    await session().one((r) => r.set(tenantKeys(row.tenantId).pinnedTerms(row.id), 'not json'));
    expect((await find([action])).size).toBe(0);
  });

  it("a row whose terms do not list this call's digest is not its row", async () => {
    const { action, row, find } = await savedConfirmation();
    const { sig: _sig, pinned: _pinned, callDigests: _digests, ...unsigned } = row;
    const resigned: PinnedTerms = await signTerms(
      { ...unsigned, actions: [{ ...action, args: { tag: 'different' } }] },
      PIN_SECRET,
    );
    await overwriteTerms(resigned);
    expect((await find([action])).size).toBe(0);
  });

  it('a call with no pending row costs one round trip; a found one two', async () => {
    const { action, row, now } = await savedConfirmation();
    const s = session();
    await livePendingRows({
      session: s,
      tenantId: row.tenantId,
      contactId: row.contactId,
      actions: [{ ...action, args: { tag: 'unseen' } }],
      secret: PIN_SECRET,
      now,
    });
    expect(s.roundTrips).toBe(1);
    await livePendingRows({
      session: s,
      tenantId: row.tenantId,
      contactId: row.contactId,
      actions: [action, { ...action, id: 'a_other', args: { tag: 'unseen' } }],
      secret: PIN_SECRET,
      now,
    });
    expect(s.roundTrips).toBe(3);
  });

  it('two rows for two calls are both found, each for its own action', async () => {
    const first = gatedAction('one', 'confirm');
    const second = gatedAction('two', 'confirm');
    const a = await pinnedFixture([first]);
    // The same contact, a later turn pinning another call.
    const contactId = a.confirmation!.contactId;
    const b = await pinnedFixture([second]);
    const moved = { ...b.confirmation!, tenantId: a.confirmation!.tenantId, contactId };
    const { sig: _s, pinned: _p, callDigests: _d, ...unsigned } = moved;
    const resigned = await signTerms(unsigned, PIN_SECRET);
    await savePinned([resigned]);
    const found = await livePendingRows({
      session: session(),
      tenantId: a.confirmation!.tenantId,
      contactId,
      actions: [first, second],
      secret: PIN_SECRET,
      now: a.now,
    });
    expect(found.get(first.id)?.id).toBe(a.confirmation!.id);
    expect(found.get(second.id)?.id).toBe(resigned.id);
  });

  it('a row written before call digests existed is not matched, and does not throw', async () => {
    const { action, row, find } = await savedConfirmation();
    const { sig: _sig, callDigests: _digests, ...unsigned } = row;
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(`pinned-terms:${PIN_SECRET}`),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(canonicalJson(unsigned)));
    const old: PinnedTerms = {
      ...unsigned,
      sig: [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join(''),
    };
    await overwriteTerms(old);
    expect((await find([action])).size).toBe(0);
  });
});

describe('pendingRowsFor: a row is reused only while its kind matches the call gate', () => {
  it('a confirmation for a call now gated by approval is returned to supersede, not to reuse', async () => {
    const { action, row, now } = await savedConfirmation();
    const input = { session: session(), tenantId: row.tenantId, contactId: row.contactId, secret: PIN_SECRET, now };
    const same = await pendingRowsFor({ ...input, actions: [action] });
    expect([...same.reuse.keys()]).toEqual([action.id]);
    expect(same.supersede).toEqual([]);
    const regated = await pendingRowsFor({ ...input, actions: [{ ...action, gate: 'approval' }] });
    expect(regated.reuse.size).toBe(0);
    expect(regated.supersede.map((r) => r.id)).toEqual([row.id]);
    // One retired call retires the row for all of its calls: no call reuses it.
    const both = await pendingRowsFor({ ...input, actions: [action, { ...action, id: 'a_twin', gate: 'approval' }] });
    expect(both.reuse.size).toBe(0);
    expect(both.supersede.map((r) => r.id)).toEqual([row.id]);
  });
});
