import { describe, expect, it } from 'vitest';
import { buildOutboxEntry } from '../../core/outbox-entry.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import { DUE_INDEX_KEY, TTL, tenantKeys } from '../../core/storage/keys.js';
import { outboxDueAt } from '../../core/storage/due-index.js';
import { pinnedKeys } from '../../core/storage/pinned-rows.js';
import { gatedAction, overwriteTerms, pinnedFixture, savePinned } from '../../test/support/pinned-fixtures.js';
import { PIN_SECRET } from '../../test/support/turn-stage.js';
import { pinGatedActions } from './create-pinned.js';
import { stageConfig, stored } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import {
  correctionsOf,
  decidePinned,
  expireUnverifiable,
  loadPinned,
  ownedCalls,
  PinnedTermsImmutableError,
  supersedePinned,
  writePinnedTerms,
} from './pinned-store.js';

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

describe('expireUnverifiable: a pending row that does not verify is expired at once, with its notice', () => {
  it('before its deadline too: expired, out of the approval queue, its calls let go, its notice committed in the same step', async () => {
    const { config, terms, status, queued, now } = await approvalRow();
    const keys = tenantKeys(config.tenantId);
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    const notice = { ...entryFor(terms, now), turnId: `${terms.id}.notice` };
    expect(await expireUnverifiable(session(), loaded, notice, now)).toBe('ok');
    expect(await status()).toBe('expired');
    expect(await queued()).toBe(false);
    expect(await stored(config.tenantId, (k) => k.outbox(notice.turnId))).toEqual(notice);
    expect(Number(await session().one((r) => r.zscore(keys.outboxPending, notice.turnId)))).toBe(now.getTime());
    for (const d of terms.callDigests!)
      expect(await session().one((r) => r.get(keys.pendingCall(terms.contactId, d)))).toBeNull();
    // Decided: a second expiry finds the status it left, and writes nothing.
    expect(await expireUnverifiable(session(), loaded, null, now)).toBe('expired');
  });

  it('a row decided meanwhile keeps its decision; a row changed again after it was read is tampered', async () => {
    const decided = await approvalRow();
    const loaded = (await loadPinned(session(), decided.config.tenantId, decided.terms.id))!;
    expect(await decidePinned(session(), loaded, 'approved', entryFor(decided.terms, decided.now), decided.now)).toBe(
      'ok',
    );
    expect(await expireUnverifiable(session(), loaded, null, decided.now)).toBe('approved');
    expect(await decided.status()).toBe('approved');

    const changed = await approvalRow();
    const read = (await loadPinned(session(), changed.config.tenantId, changed.terms.id))!;
    await overwriteTerms({ ...changed.terms, card: 'changed after it was read' });
    expect(await expireUnverifiable(session(), read, null, changed.now)).toBe('tampered');
    expect(await changed.status()).toBe('pending');
  });
});

describe('decidePinned: the entry it writes, for the delivery and the cron', () => {
  it("the entry lives the outbox's TTL, is pending from now, and the tenant is due in the cron's index", async () => {
    const { config, terms, now } = await approvalRow();
    const keys = tenantKeys(config.tenantId);
    const loaded = (await loadPinned(session(), config.tenantId, terms.id))!;
    // Someone else's later due time for the tenant is brought forward (LT), not left.
    await session().one((r) =>
      r.zadd(DUE_INDEX_KEY, { score: outboxDueAt(now.getTime()) + 3_600_000, member: config.tenantId }),
    );
    expect(await decidePinned(session(), loaded, 'approved', entryFor(terms, now), now)).toBe('ok');
    const ttl = Number(await session().one((r) => r.ttl(keys.outbox(terms.id))));
    expect(ttl).toBeGreaterThan(TTL.outboxSeconds - 60);
    expect(ttl).toBeLessThanOrEqual(TTL.outboxSeconds);
    expect(Number(await session().one((r) => r.zscore(keys.outboxPending, terms.id)))).toBe(now.getTime());
    expect(Number(await session().one((r) => r.zscore(DUE_INDEX_KEY, config.tenantId)))).toBe(
      outboxDueAt(now.getTime()),
    );
  });

  it('a No (declined) lets go of the calls the row owns, and only those', async () => {
    const { confirmation } = await pinnedFixture([gatedAction('one', 'confirm'), gatedAction('two', 'confirm')]);
    const row = confirmation!;
    const keys = tenantKeys(row.tenantId);
    const [mine, theirs] = row.callDigests!.map((d) => keys.pendingCall(row.contactId, d));
    await session().one((r) => r.set(theirs!, 'cf_another_row'));
    const loaded = (await loadPinned(session(), row.tenantId, row.id))!;
    expect(await decidePinned(session(), loaded, 'declined', null, new Date())).toBe('ok');
    expect(await session().one((r) => r.get(mine!))).toBeNull();
    expect(await session().one((r) => r.get(theirs!))).toBe('cf_another_row');
  });
});

describe('supersedePinned: a row whose gate changed is retired, not decided', () => {
  it('pending → superseded, out of the approval queue, its own calls let go; once only; a decided row is left as it is', async () => {
    const { config, terms, status, queued } = await approvalRow();
    const keys = tenantKeys(config.tenantId);
    const callKey = keys.pendingCall(terms.contactId, terms.callDigests![0]!);
    expect(await session().one((r) => r.get(callKey))).toBe(terms.id);
    expect(await supersedePinned(session(), terms)).toBe(true);
    expect(await status()).toBe('superseded');
    expect(await queued()).toBe(false);
    expect(await session().one((r) => r.get(callKey))).toBeNull();
    expect(await supersedePinned(session(), terms)).toBe(false);

    const other = await approvalRow();
    const otherCall = tenantKeys(other.config.tenantId).pendingCall(
      other.terms.contactId,
      other.terms.callDigests![0]!,
    );
    await session().one((r) => r.set(otherCall, 'ap_another_row'));
    const loaded = (await loadPinned(session(), other.config.tenantId, other.terms.id))!;
    await decidePinned(session(), loaded, 'rejected', null, other.now);
    expect(await supersedePinned(session(), other.terms)).toBe(false);
    expect(await other.status()).toBe('rejected');
    expect(await session().one((r) => r.get(otherCall))).toBe('ap_another_row');
  });

  it("a pending row lets go only of the calls it owns, not another row's", async () => {
    const { config, terms, status } = await approvalRow();
    const callKey = tenantKeys(config.tenantId).pendingCall(terms.contactId, terms.callDigests![0]!);
    await session().one((r) => r.set(callKey, 'ap_another_row'));
    expect(await supersedePinned(session(), terms)).toBe(true);
    expect(await status()).toBe('superseded');
    expect(await session().one((r) => r.get(callKey))).toBe('ap_another_row');
  });
});

describe('correctionsOf: which approval corrected which', () => {
  it('the correcting row of each original that has one, in one round trip; none asked, none read', async () => {
    const { config } = await approvalRow();
    const tenantId = config.tenantId;
    const correctionKey = (t: string, id: string) => pinnedKeys(t).correction(id);
    expect(correctionKey(tenantId, 'ap_1')).toBe(`${tenantKeys(tenantId).pinnedStatus('ap_1')}:corrected-by`);
    await session().one((r) => r.set(correctionKey(tenantId, 'ap_1'), 'ap_1b'));
    const counted = session();
    expect(await correctionsOf(counted, tenantId, ['ap_1', 'ap_2'])).toEqual(new Map([['ap_1', 'ap_1b']]));
    expect(counted.roundTrips).toBe(1);
    const idle = session();
    expect(await correctionsOf(idle, tenantId, [])).toEqual(new Map());
    expect(idle.roundTrips).toBe(0);
  });
});
