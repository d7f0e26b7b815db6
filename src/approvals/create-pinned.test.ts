import { describe, expect, it } from 'vitest';
import { verifyTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import { gatedAction, pinnedFixture } from '../../test/support/pinned-fixtures.js';
import { PIN_SECRET } from '../../test/support/turn-stage.js';
import { approvalCard, APPROVAL_TTL_MS, CONFIRMATION_TTL_MS } from './create-pinned.js';

const open: StagedAction = { ...gatedAction('open', 'confirm'), gate: 'none' };

describe('pinGatedActions: a passing turn’s gated actions become pinned rows', () => {
  it("all of a turn's confirm-gated actions become one confirmation (one Yes/No pair), in order", async () => {
    const [a, b] = [gatedAction('news', 'confirm'), gatedAction('promo', 'confirm')];
    const { confirmation, approvals, inbound, now } = await pinnedFixture([a, open, b], { save: false });
    expect(approvals).toEqual([]);
    expect(confirmation).toMatchObject({
      kind: 'confirmation',
      tenantId: inbound.tenantId,
      contactId: inbound.contactId,
      channel: 'manychat',
      actions: [a, b],
      card: 'add tag "news"; add tag "promo"',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + CONFIRMATION_TTL_MS).toISOString(),
    });
    expect(confirmation!.id).toMatch(/^cf_[0-9a-f]{32}$/);
    expect(confirmation!.nonce).toMatch(/^[0-9a-f]{32}$/);
  });

  it('each approval-gated action gets its own approval row, expiring after an hour', async () => {
    const [x, y] = [gatedAction('vip', 'approval'), gatedAction('member', 'approval')];
    const { confirmation, approvals, now } = await pinnedFixture([x, open, y], { save: false });
    expect(confirmation).toBeNull();
    expect(approvals.map((r) => [r.kind, r.actions])).toEqual([
      ['approval', [x]],
      ['approval', [y]],
    ]);
    expect(new Set(approvals.map((r) => r.id)).size).toBe(2);
    for (const r of approvals) {
      expect(r.id).toMatch(/^ap_[0-9a-f]{32}$/);
      expect(r.expiresAt).toBe(new Date(now.getTime() + APPROVAL_TTL_MS).toISOString());
    }
    expect(CONFIRMATION_TTL_MS).toBe(24 * 3600 * 1000);
    expect(APPROVAL_TTL_MS).toBe(3600 * 1000);
  });

  it('nothing gated, nothing pinned', async () => {
    expect(await pinnedFixture([open], { save: false })).toMatchObject({ confirmation: null, approvals: [] });
  });

  it('pins each call as tool + canonical JSON (sorted keys), and signs the terms', async () => {
    const action = gatedAction('odd', 'approval', { tag: 'odd', b: { z: 1, a: 2 } });
    const {
      approvals: [row],
    } = await pinnedFixture([action], { save: false });
    expect(row!.pinned).toEqual([{ tool: 'untag_contact', args: '{"b":{"a":2,"z":1},"tag":"odd"}' }]);
    expect(await verifyTerms(row!, PIN_SECRET)).toBe(true);
  });

  it('terms changed after signing, or checked with another secret, do not verify', async () => {
    const {
      approvals: [row],
    } = await pinnedFixture([gatedAction('vip', 'approval')], { save: false });
    expect(await verifyTerms(row!, 'another-secret')).toBe(false);
    const swapped = { ...row!, actions: [{ ...row!.actions[0]!, args: { tag: 'everyone' } }] };
    expect(await verifyTerms(swapped, PIN_SECRET)).toBe(false);
    expect(await verifyTerms({ ...row!, contactId: '1' }, PIN_SECRET)).toBe(false);
    expect(await verifyTerms({ ...row!, expiresAt: new Date(Date.now() + 9e9).toISOString() }, PIN_SECRET)).toBe(false);
  });
});

describe('approvalCard: what a person reads before deciding', () => {
  it('says what changes, for whom, whether it can be undone, and what the contact asked', async () => {
    const {
      approvals: [row],
      config,
      inbound,
    } = await pinnedFixture([gatedAction('vip', 'approval')], { save: false, text: 'remove my vip tag' });
    expect(row!.card).toBe(
      `remove tag "vip" — for Ada (contact ${inbound.contactId}). Reversible afterwards with "tag_contact". Asked in: "remove my vip tag"`,
    );
    const irreversible = { ...config.manifest, untag_contact: { effect: 'destructive' as const } };
    const anonymous = { ...inbound, contact: { fields: {} }, text: 'x'.repeat(300) };
    expect(approvalCard(row!.actions[0]!, anonymous, irreversible)).toBe(
      `remove tag "vip" — for contact ${inbound.contactId}. This cannot be undone. Asked in: "${'x'.repeat(200)}"`,
    );
  });
});
