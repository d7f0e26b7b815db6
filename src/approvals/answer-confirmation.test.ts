import { describe, expect, it } from 'vitest';
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
