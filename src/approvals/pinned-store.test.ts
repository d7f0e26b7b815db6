import { describe, expect, it } from 'vitest';
import { buildOutboxEntry } from '../../core/outbox-entry.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { gatedAction, overwriteTerms, pinnedFixture, savePinned } from '../../test/support/pinned-fixtures.js';
import { PIN_SECRET } from '../../test/support/turn-stage.js';
import { pinGatedActions } from './create-pinned.js';
import { stageConfig, stored } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { decidePinned, loadPinned, ownedCalls, PinnedTermsImmutableError, writePinnedTerms } from './pinned-store.js';

const entryFor = (terms: PinnedTerms, now: Date) =>
  buildOutboxEntry({
    entryId: terms.id,
    tenantId: terms.tenantId,
    channel: terms.channel,
    contactId: terms.contactId,
    actions: terms.actions,
    now,
  });

async function approvalRow() {
  const fixture = await pinnedFixture([gatedAction('vip', 'approval')]);
  const terms = fixture.approvals[0]!;
  const keys = tenantKeys(terms.tenantId);
  const status = () => session().one((r) => r.get(keys.pinnedStatus(terms.id)));
  const queued = async () => (await session().one((r) => r.zscore(keys.approvalQueue, terms.id))) !== null;
  const entry = () => stored(terms.tenantId, (k) => k.outbox(terms.id));
  return { ...fixture, terms, status, queued, entry };
}

describe('writePinnedTerms: terms are written once and never changed', () => {
  it('a second write for the same id is refused and the first terms stay', async () => {
    const {
      approvals: [terms],
    } = await pinnedFixture([gatedAction('vip', 'approval')], { save: false });
    await writePinnedTerms(session(), terms!);
    const changed = { ...terms!, card: 'something else entirely' };
    await expect(writePinnedTerms(session(), changed)).rejects.toBeInstanceOf(PinnedTermsImmutableError);
    // The error names itself and the row (what the caller's log and 409 show).
    await expect(writePinnedTerms(session(), changed)).rejects.toMatchObject({
      name: 'PinnedTermsImmutableError',
      message: `the pinned terms of ${terms!.id} already exist and cannot be changed`,
    });
    expect(await stored(terms!.tenantId, (k) => k.pinnedTerms(terms!.id))).toEqual(terms);
  });
});

describe('loadPinned: a row as stored', () => {
  it('returns the terms, their exact stored text and the status', async () => {
    const { terms, config } = await approvalRow();
    const loaded = await loadPinned(session(), config.tenantId, terms.id);
    expect(loaded).toEqual({ terms, raw: JSON.stringify(terms), status: 'pending' });
  });

  it('null for an unknown id, a row without status, unparsable terms, or terms of another tenant', async () => {
    const { terms, config } = await approvalRow();
    expect(await loadPinned(session(), config.tenantId, 'ap_unknown')).toBeNull();
    const other = stageConfig().tenantId;
    const otherKeys = tenantKeys(other);
    await session().pipeline((p) => {
      p.set(otherKeys.pinnedTerms(terms.id), JSON.stringify(terms));
      p.set(otherKeys.pinnedStatus(terms.id), 'pending');
      p.set(otherKeys.pinnedTerms('ap_nostatus'), JSON.stringify({ ...terms, tenantId: other, id: 'ap_nostatus' }));
      p.set(otherKeys.pinnedTerms('ap_garbage'), '{"id":"ap_garbage"}');
      p.set(otherKeys.pinnedStatus('ap_garbage'), 'pending');
    });
    expect(await loadPinned(session(), other, terms.id)).toBeNull();
    expect(await loadPinned(session(), other, 'ap_nostatus')).toBeNull();
    expect(await loadPinned(session(), other, 'ap_garbage')).toBeNull();
  });
});

describe('decidePinned: the one atomic decision on a pending row', () => {
  it('pending → the decision, with its outbox entry written and the row leaving the approval queue', async () => {
    const { config, terms, status, queued, entry, now } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    expect(await queued()).toBe(true);
    const e = entryFor(terms, now);
    expect(await decidePinned(session(), loaded, 'approved', e, now)).toBe('ok');
    expect(await status()).toBe('approved');
    expect(await queued()).toBe(false);
    expect(await entry()).toEqual(e);
    expect(await session().one((r) => r.zscore(tenantKeys(config.tenantId).outboxPending, terms.id))).not.toBeNull();
  });

  it('only pending moves: a second decision gets the status the first left, and writes nothing', async () => {
    const { config, terms, status, entry, now } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    expect(await decidePinned(session(), loaded, 'rejected', null, now)).toBe('ok');
    expect(await decidePinned(session(), loaded, 'approved', entryFor(terms, now), now)).toBe('rejected');
    expect(await status()).toBe('rejected');
    expect(await entry()).toBeNull();
    // A decision without an entry writes no entry at all (not one under the placeholder id).
    const keys = tenantKeys(config.tenantId);
    expect(await session().one((r) => r.get(keys.outbox('none')))).toBeNull();
    expect(await session().one((r) => r.zscore(keys.outboxPending, 'none'))).toBeNull();
  });

  it('of concurrent decisions exactly one wins', async () => {
    const { config, terms, now } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => decidePinned(session(), loaded, 'approved', entryFor(terms, now), now)),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r !== 'ok')).toEqual(['approved', 'approved', 'approved']);
  });

  it('terms changed in Redis after they were loaded: tampered, still pending, nothing written', async () => {
    const { config, terms, status, entry, now } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    await overwriteTerms({ ...terms, card: 'edited after verification' });
    expect(await decidePinned(session(), loaded, 'approved', entryFor(terms, now), now)).toBe('tampered');
    expect(await status()).toBe('pending');
    expect(await entry()).toBeNull();
  });

  it('past its expiry a decision is refused as expired and the row stays pending for the expiry job', async () => {
    const { config, terms, status, entry } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    const late = new Date(Date.parse(terms.expiresAt) + 1);
    expect(await decidePinned(session(), loaded, 'approved', entryFor(terms, late), late)).toBe('expired');
    expect(await status()).toBe('pending');
    expect(await entry()).toBeNull();
  });

  it('the expiry itself only applies once the row has expired', async () => {
    const { config, terms, status } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    const atExpiry = new Date(Date.parse(terms.expiresAt));
    expect(await decidePinned(session(), loaded, 'expired', null, atExpiry)).toBe('not-expired');
    expect(await status()).toBe('pending');
    expect(await decidePinned(session(), loaded, 'expired', null, new Date(atExpiry.getTime() + 1))).toBe('ok');
    expect(await status()).toBe('expired');
  });

  it('a row whose status is gone is missing', async () => {
    const { config, terms, now } = await approvalRow();
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    await session().one((r) => r.del(tenantKeys(config.tenantId).pinnedStatus(terms.id)));
    expect(await decidePinned(session(), loaded, 'approved', null, now)).toBe('missing');
  });
});

describe('decidePinned: one row per call (issue 22)', () => {
  it('a second row for the same call is superseded and performs nothing; the owner decides, and lets go of the call', async () => {
    // Rule: a call two concurrent turns both pinned is performed once, by the row that owns it;
    // once decided, the contact may ask for the call afresh.
    const first = await approvalRow();
    const keys = tenantKeys(first.terms.tenantId);
    const second = (
      await pinGatedActions({
        turnId: 'turn_second',
        inbound: first.inbound,
        staged: [gatedAction('vip', 'approval')],
        manifest: first.config.manifest,
        secret: PIN_SECRET,
        now: first.now,
      })
    ).approvals[0]!;
    expect(second.callDigests).toEqual(first.terms.callDigests);
    expect(second.callDigests?.length).toBeGreaterThan(0);
    await savePinned([second]);
    const callKeys = second.callDigests!.map((d) => keys.pendingCall(second.contactId, d));
    const owners = () => Promise.all(callKeys.map((k) => session().one((r) => r.get(k))));
    expect(await owners()).toEqual(callKeys.map(() => first.terms.id));

    const loadedSecond = (await loadPinned(session(), first.config.tenantId, second.id))!;
    expect(await decidePinned(session(), loadedSecond, 'approved', entryFor(second, first.now), first.now)).toBe(
      'superseded',
    );
    expect((await loadPinned(session(), first.config.tenantId, second.id))?.status).toBe('superseded');
    expect(await session().one((r) => r.get(keys.outbox(second.id)))).toBeNull();
    expect(await session().one((r) => r.zscore(keys.approvalQueue, second.id))).toBeNull();
    expect(await owners()).toEqual(callKeys.map(() => first.terms.id));

    const loadedFirst = (await loadPinned(session(), first.config.tenantId, first.terms.id))!;
    expect(await decidePinned(session(), loadedFirst, 'approved', entryFor(first.terms, first.now), first.now)).toBe(
      'ok',
    );
    expect(await owners()).toEqual(callKeys.map(() => null));
  });
});

describe('ownedCalls: which of its calls a row may perform', () => {
  it("true for the calls the contact's pending-call index names the row for, false for another row's or a released one", async () => {
    const first = await pinnedFixture([gatedAction('one', 'confirm'), gatedAction('two', 'confirm')]);
    const row = first.confirmation!;
    expect(await ownedCalls(session(), row)).toEqual([true, true]);
    const keys = tenantKeys(row.tenantId);
    await session().pipeline((p) => {
      p.set(keys.pendingCall(row.contactId, row.callDigests![0]!), 'cf_someone_else');
      p.del(keys.pendingCall(row.contactId, row.callDigests![1]!));
    });
    expect(await ownedCalls(session(), row)).toEqual([false, false]);
  });

  it('null (owns all its actions) for a row written before call digests, or whose digests do not line up with its actions', async () => {
    const { confirmation } = await pinnedFixture([gatedAction('three', 'confirm')]);
    const { callDigests, ...legacy } = confirmation!;
    expect(await ownedCalls(session(), legacy)).toBeNull();
    expect(await ownedCalls(session(), { ...legacy, callDigests: [] })).toBeNull();
    expect(
      await ownedCalls(session(), { ...confirmation!, callDigests: [...callDigests!, callDigests![0]!] }),
    ).toBeNull();
  });
});
