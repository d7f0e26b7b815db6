import { describe, expect, it, vi } from 'vitest';
import { signTerms, type PinnedTerms } from '../../core/pinned-terms.js';
import { runtimeWords } from '../../core/runtime-words.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { gatedAction, overwriteTerms, pinnedFixture, savePinned } from '../../test/support/pinned-fixtures.js';
import { pinGatedActions } from './create-pinned.js';
import { PIN_SECRET, recordingPublisher, stored } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { answerConfirmation } from './answer-confirmation.js';

async function pendingConfirmation() {
  const actions = [gatedAction('news', 'confirm'), gatedAction('promo', 'confirm')];
  const fixture = await pinnedFixture([...actions, gatedAction('vip', 'approval')]);
  const row = fixture.confirmation!;
  const { publisher, published } = recordingPublisher();
  const deps = (now = fixture.now) => ({
    session: session(),
    publisher,
    pinSecret: PIN_SECRET,
    now,
    config: fixture.config,
  });
  const claim = (
    answer: 'yes' | 'no',
    overrides: Partial<{ contactId: string; pendingId: string; nonce: string }> = {},
  ) => ({
    tenantId: row.tenantId,
    contactId: row.contactId,
    pendingId: row.id,
    answer,
    nonce: row.nonce,
    ...overrides,
  });
  const entry = () => stored(row.tenantId, (k) => k.outbox(row.id)) as Promise<OutboxEntry | null>;
  const status = () => session().one((r) => r.get(tenantKeys(row.tenantId).pinnedStatus(row.id)));
  return { ...fixture, row, actions, deps, claim, entry, status, published };
}

describe('answerConfirmation: the Yes/No, without a model call', () => {
  it('Yes commits exactly the pinned actions through the outbox, once, and says so', async () => {
    const { row, actions, deps, claim, entry, status, published } = await pendingConfirmation();
    const answer = await answerConfirmation(deps(), claim('yes'));
    expect(answer).toEqual({ outcome: 'confirmed', text: `Confirmed: ${row.card}. It is on its way.` });
    expect(await entry()).toMatchObject({ turnId: row.id, contactId: row.contactId, actions, state: 'pending' });
    expect(await status()).toBe('confirmed');
    expect(published).toEqual([{ tenantId: row.tenantId, turnId: row.id }]);
  });

  it('No discards them: nothing in the outbox, nothing published', async () => {
    const { deps, claim, entry, status, published } = await pendingConfirmation();
    expect(await answerConfirmation(deps(), claim('no'))).toEqual({
      outcome: 'declined',
      text: 'OK, nothing was changed.',
    });
    expect(await entry()).toBeNull();
    expect(await status()).toBe('declined');
    expect(published).toEqual([]);
  });

  it('a replayed Yes, or a No after a Yes, changes nothing more', async () => {
    const { deps, claim, entry, published } = await pendingConfirmation();
    await answerConfirmation(deps(), claim('yes'));
    const first = await entry();
    for (const answer of ['yes', 'no'] as const) {
      expect((await answerConfirmation(deps(), claim(answer))).outcome).toBe('already-answered');
    }
    expect(await entry()).toEqual(first);
    expect(published).toHaveLength(1);
  });

  it('a button from another contact, with the wrong nonce, or for an unknown row is invalid and changes nothing', async () => {
    const { deps, claim, entry, status } = await pendingConfirmation();
    for (const bad of [
      claim('yes', { contactId: '424242' }),
      claim('yes', { nonce: 'f'.repeat(32) }),
      claim('yes', { nonce: '' }),
      claim('yes', { pendingId: 'cf_unknown' }),
    ]) {
      expect(await answerConfirmation(deps(), bad)).toEqual({
        outcome: 'invalid',
        text: 'That button is no longer valid; nothing was changed.',
      });
    }
    expect(await status()).toBe('pending');
    expect(await entry()).toBeNull();
  });

  it('an approval row cannot be confirmed by a contact, even with its nonce', async () => {
    const { approvals, deps, claim } = await pendingConfirmation();
    const approval = approvals[0]!;
    expect(
      (await answerConfirmation(deps(), claim('yes', { pendingId: approval.id, nonce: approval.nonce }))).outcome,
    ).toBe('invalid');
    expect(await session().one((r) => r.get(tenantKeys(approval.tenantId).pinnedStatus(approval.id)))).toBe('pending');
  });

  it('terms altered in Redis (the signature no longer matches) are refused and nothing is performed', async () => {
    const { row, deps, claim, entry, status } = await pendingConfirmation();
    await overwriteTerms({ ...row, actions: row.actions.map((a) => ({ ...a, args: { tag: 'vip' } })) });
    expect(await answerConfirmation(deps(), claim('yes'))).toEqual({
      outcome: 'expired',
      text: 'That request could not be verified; nothing was changed.',
    });
    // Expired at once: it does not wait for its TTL, and the next press changes nothing either.
    expect(await status()).toBe('expired');
    expect(await entry()).toBeNull();
    expect(await answerConfirmation(deps(), claim('yes'))).toEqual({
      outcome: 'invalid',
      text: 'That request could not be verified; nothing was changed.',
    });
    expect(await entry()).toBeNull();
  });

  it('a rotation of SESSION_SECRET: with the previous secret kept, a Yes pinned before it is performed', async () => {
    const { deps, claim, entry, status } = await pendingConfirmation();
    const rotated = { current: 'the-new-session-secret-after-rotation', previous: PIN_SECRET };
    expect((await answerConfirmation({ ...deps(), pinSecret: rotated }, claim('yes'))).outcome).toBe('confirmed');
    expect(await status()).toBe('confirmed');
    expect(await entry()).not.toBeNull();
  });

  it('a rotation without the previous secret: the row cannot be verified, nothing is performed, it is expired', async () => {
    const { deps, claim, entry, status } = await pendingConfirmation();
    const lost = { current: 'the-new-session-secret-after-rotation' };
    expect(await answerConfirmation({ ...deps(), pinSecret: lost }, claim('yes'))).toEqual({
      outcome: 'expired',
      text: 'That request could not be verified; nothing was changed.',
    });
    expect(await status()).toBe('expired');
    expect(await entry()).toBeNull();
  });

  it('after its expiry a Yes does nothing', async () => {
    const { row, deps, claim, entry, status } = await pendingConfirmation();
    const late = new Date(Date.parse(row.expiresAt) + 1000);
    expect(await answerConfirmation(deps(late), claim('yes'))).toEqual({
      outcome: 'expired',
      text: 'That request has expired; nothing was changed.',
    });
    expect(await entry()).toBeNull();
    expect(await status()).toBe('pending');
  });

  it('two Yes presses at once commit once', async () => {
    const { deps, claim, published } = await pendingConfirmation();
    const outcomes = await Promise.all([1, 2, 3].map(() => answerConfirmation(deps(), claim('yes'))));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['already-answered', 'already-answered', 'confirmed']);
    expect(published).toHaveLength(1);
  });
});

describe('answerConfirmation: overlapping rows {A,B} and {B,C} (issue 28 item 13)', () => {
  // Two concurrent turns pinned A,B and B,C: the first row owns B, the second only C. Before, a Yes
  // on the second row superseded it whole (C silently gone), or, after the first was decided,
  // performed B a second time.
  async function overlapping() {
    const [a, b, c] = [
      gatedAction('alpha', 'confirm'),
      gatedAction('beta', 'confirm'),
      gatedAction('gamma', 'confirm'),
    ];
    const first = await pinnedFixture([a!, b!]);
    const rowAB = first.confirmation!;
    const second = await pinGatedActions({
      turnId: 'turn_overlap',
      inbound: first.inbound,
      staged: [b!, c!],
      manifest: first.config.manifest,
      secret: PIN_SECRET,
      now: first.now,
    });
    const rowBC = second.confirmation!;
    await savePinned([rowBC]);
    const { publisher } = recordingPublisher();
    // gamma is configured too (a Yes re-checks each pinned action against the config).
    const config = { ...first.config, tags: [...first.config.tags, { name: 'gamma', description: '' }] };
    const deps = { session: session(), publisher, pinSecret: PIN_SECRET, now: first.now, config };
    const yes = (row: typeof rowAB) =>
      answerConfirmation(deps, {
        tenantId: row.tenantId,
        contactId: row.contactId,
        pendingId: row.id,
        answer: 'yes',
        nonce: row.nonce,
      });
    const entryOf = (row: typeof rowAB) => stored(row.tenantId, (k) => k.outbox(row.id)) as Promise<OutboxEntry | null>;
    const tags = async (row: typeof rowAB) => (await entryOf(row))?.actions.map((x) => x.args.tag) ?? [];
    return { rowAB, rowBC, yes, tags };
  }

  it('Yes on {B,C} performs C alone; B stays with {A,B}, whose Yes performs A and B', async () => {
    const { rowAB, rowBC, yes, tags } = await overlapping();
    expect((await yes(rowBC)).outcome).toBe('confirmed');
    expect(await tags(rowBC)).toEqual(['gamma']);
    expect((await yes(rowAB)).outcome).toBe('confirmed');
    expect(await tags(rowAB)).toEqual(['alpha', 'beta']);
  });

  it('Yes on {A,B} first, then on {B,C}: C is performed, B not a second time', async () => {
    const { rowAB, rowBC, yes, tags } = await overlapping();
    await yes(rowAB);
    expect(await tags(rowAB)).toEqual(['alpha', 'beta']);
    const answer = await yes(rowBC);
    expect(answer.outcome).toBe('confirmed');
    expect(await tags(rowBC)).toEqual(['gamma']);
    expect(answer.text).toContain('gamma');
    expect(answer.text).not.toContain('beta');
  });
});

describe('answerConfirmation: what the configuration allows now, the retry of the same answer, the channel and the language', () => {
  /** The pending confirmation re-signed with `extra` (as a turn on that channel or language would pin it). */
  async function resigned(extra: Partial<PinnedTerms>) {
    const fixture = await pinnedFixture([gatedAction('news', 'confirm')], { save: false });
    const { sig: _sig, pinned: _pinned, callDigests: _digests, ...unsigned } = fixture.confirmation!;
    const row = await signTerms({ ...unsigned, ...extra }, PIN_SECRET);
    await savePinned([row]);
    const { publisher } = recordingPublisher();
    const deps = { session: session(), publisher, pinSecret: PIN_SECRET, now: fixture.now, config: fixture.config };
    const claim = (answer: 'yes' | 'no', contactId = row.contactId) => ({
      tenantId: row.tenantId,
      contactId,
      pendingId: row.id,
      answer,
      nonce: row.nonce,
    });
    return { row, deps, claim };
  }

  it('a Yes on calls the tenant no longer allows: refused, told why, nothing performed', async () => {
    const { row, deps, claim, entry, status, published, config } = await pendingConfirmation();
    const changed = { ...deps(), config: { ...config, tools: config.tools.filter((t) => t.name !== 'tag_contact') } };
    const answer = await answerConfirmation(changed, claim('yes'));
    expect(answer.outcome).toBe('refused');
    expect(answer.text).toMatch(
      /^This can no longer be done, because the business changed its settings: .*news.*promo.*\. Nothing was changed\.$/,
    );
    expect(answer.refused).toEqual([
      'add tag "news": tool "tag_contact" is not configured',
      'add tag "promo": tool "tag_contact" is not configured',
    ]);
    expect(await status()).toBe('refused');
    expect(await entry()).toBeNull();
    expect(published).toEqual([]);
    // The same Yes again (its first reply lost): already answered, the same words.
    expect(await answerConfirmation(changed, claim('yes'))).toEqual({
      outcome: 'already-answered',
      text: 'You already answered that one; nothing more was changed.',
      sameAs: { outcome: 'refused', text: answer.text },
    });
    expect(row.id).toBeTruthy();
  });

  it('a Yes of which one call is no longer allowed performs the other, and says both', async () => {
    const { deps, claim, entry, actions, config } = await pendingConfirmation();
    const changed = { ...deps(), config: { ...config, tags: (config.tags ?? []).filter((t) => t.name !== 'promo') } };
    const answer = await answerConfirmation(changed, claim('yes'));
    expect(answer.outcome).toBe('confirmed');
    expect(answer.text).toMatch(
      /^Confirmed: .*news.*\. It is on its way\. This can no longer be done, because the business changed its settings: .*promo.*\. Nothing was changed\.$/,
    );
    expect(answer.refused).toHaveLength(1);
    expect(answer.refused![0]).toContain('promo');
    expect((await entry())?.actions).toEqual([actions[0]]);
  });

  it('a retried Yes is told what the first said; a No after a Yes, or a Yes after a No, is not', async () => {
    const yes = await pendingConfirmation();
    const first = await answerConfirmation(yes.deps(), yes.claim('yes'));
    expect(await answerConfirmation(yes.deps(), yes.claim('yes'))).toEqual({
      outcome: 'already-answered',
      text: 'You already answered that one; nothing more was changed.',
      sameAs: { outcome: 'confirmed', text: first.text },
    });
    expect(await answerConfirmation(yes.deps(), yes.claim('no'))).toEqual({
      outcome: 'already-answered',
      text: 'You already answered that one; nothing more was changed.',
    });
    const no = await pendingConfirmation();
    await answerConfirmation(no.deps(), no.claim('no'));
    expect(await answerConfirmation(no.deps(), no.claim('no'))).toEqual({
      outcome: 'already-answered',
      text: 'You already answered that one; nothing more was changed.',
      sameAs: { outcome: 'declined', text: 'OK, nothing was changed.' },
    });
    expect((await answerConfirmation(no.deps(), no.claim('yes'))).sameAs).toBeUndefined();
  });

  it("the answer has the channel the row was asked on; its entry the row's channel and the press as the contact's last message", async () => {
    const { row, deps, claim } = await resigned({ surface: 'instagram' });
    const answer = await answerConfirmation(deps, claim('yes'));
    expect(answer).toMatchObject({ outcome: 'confirmed', surface: 'instagram' });
    const entry = (await stored(row.tenantId, (k) => k.outbox(row.id))) as OutboxEntry;
    expect(entry).toMatchObject({
      surface: 'instagram',
      lastInboundAt: deps.now.toISOString(),
      stagedByTurnId: row.turnId,
    });
    expect(await answerConfirmation(deps, claim('yes'))).toMatchObject({
      outcome: 'already-answered',
      surface: 'instagram',
    });
  });

  it("words in the row's language for its contact; another contact's press gets the tenant's", async () => {
    const { deps, claim } = await resigned({ locale: 'es' });
    const asked: (string | undefined)[] = [];
    const words = (locale?: string) => {
      asked.push(locale);
      return runtimeWords({ locale: 'en' }, locale);
    };
    expect(await answerConfirmation({ ...deps, words }, claim('no', 'someone-else'))).toEqual({
      outcome: 'invalid',
      text: 'That button is no longer valid; nothing was changed.',
    });
    expect(asked).toEqual([undefined]);
    expect(await answerConfirmation({ ...deps, words }, claim('no'))).toEqual({
      outcome: 'declined',
      text: 'De acuerdo, no se cambió nada.',
    });
    expect(asked).toEqual([undefined, 'es']);
  });

  it('a tampered row already answered is invalid, not expired again; a pending one is expired with a warning', async () => {
    const { row, deps, claim, status } = await pendingConfirmation();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await overwriteTerms({ ...row, card: 'changed' });
      expect((await answerConfirmation(deps(), claim('yes'))).outcome).toBe('expired');
      expect(warn).toHaveBeenCalledWith(`confirmation ${row.id} failed verification: expired`);
      const declined = await pendingConfirmation();
      await answerConfirmation(declined.deps(), declined.claim('no'));
      await overwriteTerms({ ...declined.row, card: 'changed' });
      warn.mockClear();
      expect((await answerConfirmation(declined.deps(), declined.claim('yes'))).outcome).toBe('invalid');
      expect(await declined.status()).toBe('declined');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect(await status()).toBe('expired');
  });
});

describe('answerConfirmation lets go of the calls its row owned, whatever the answer', () => {
  it('after a Yes and after a No the contact may ask for the same calls afresh', async () => {
    for (const answer of ['yes', 'no'] as const) {
      const { row, deps, claim } = await pendingConfirmation();
      const keys = tenantKeys(row.tenantId);
      const owners = () =>
        Promise.all(row.callDigests!.map((d) => session().one((r) => r.get(keys.pendingCall(row.contactId, d)))));
      expect(await owners()).toEqual([row.id, row.id]);
      await answerConfirmation(deps(), claim(answer));
      expect(await owners()).toEqual([null, null]);
    }
  });

  it("a Yes on a row that owns some of its calls lets go of those, and leaves another row's", async () => {
    const { row, deps, claim, entry, actions } = await pendingConfirmation();
    const keys = tenantKeys(row.tenantId);
    const [mine, theirs] = row.callDigests!.map((d) => keys.pendingCall(row.contactId, d));
    await session().one((r) => r.set(theirs!, 'cf_another_row'));
    expect((await answerConfirmation(deps(), claim('yes'))).outcome).toBe('confirmed');
    expect((await entry())?.actions).toEqual([actions[0]]);
    expect(await session().one((r) => r.get(mine!))).toBeNull();
    expect(await session().one((r) => r.get(theirs!))).toBe('cf_another_row');
  });
});
