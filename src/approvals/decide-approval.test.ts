import { describe, expect, it, vi } from 'vitest';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { gatedAction, overwriteTerms, pinnedFixture } from '../../test/support/pinned-fixtures.js';
import { PIN_SECRET, recordingPublisher, stored } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import {
  decideApproval,
  dueApprovalsByTenant,
  expireDueApprovals,
  listApprovals,
  retireUnverifiable,
} from './decide-approval.js';
import { loadPinned } from './pinned-store.js';

async function pendingApprovals(n = 1) {
  const fixture = await pinnedFixture(
    [...Array(n).keys()].map((i) => gatedAction(`vip${i}`, 'approval', { tag: `vip${i}`, note: { z: 1, a: 2 } })),
  );
  const { publisher, published } = recordingPublisher();
  const tenantId = fixture.config.tenantId;
  const deps = (now = fixture.now) => ({
    session: session(),
    publisher,
    pinSecret: PIN_SECRET,
    now,
    config: fixture.config,
  });
  const entry = (id: string) => stored(tenantId, (k) => k.outbox(id)) as Promise<OutboxEntry | null>;
  const status = (id: string) => session().one((r) => r.get(tenantKeys(tenantId).pinnedStatus(id)));
  const late = (row: PinnedTerms) => new Date(Date.parse(row.expiresAt) + 1000);
  return { ...fixture, tenantId, deps, entry, status, published, late };
}

describe('decideApproval: approve performs exactly the pinned call, once', () => {
  it('approve: the outbox entry holds exactly the pinned action; published; status approved', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
      status,
      published,
    } = await pendingApprovals();
    expect(await decideApproval(deps(), tenantId, row!.id, 'approve')).toEqual({ result: 'approved', id: row!.id });
    expect((await entry(row!.id))?.actions).toEqual(row!.actions);
    expect(await status(row!.id)).toBe('approved');
    expect(published).toEqual([{ tenantId, turnId: row!.id }]);
  });

  it('two approvers at once (or a double click): one approval, one entry, one publish', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      published,
    } = await pendingApprovals();
    const outcomes = await Promise.all([1, 2].map(() => decideApproval(deps(), tenantId, row!.id, 'approve')));
    expect(outcomes.map((o) => o.result).sort()).toEqual(['already-decided', 'approved']);
    expect(outcomes.find((o) => o.result === 'already-decided')).toMatchObject({ status: 'approved' });
    expect(published).toHaveLength(1);
  });

  it('reject: nothing the model asked for; the contact is told nothing was changed', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
      status,
      published,
    } = await pendingApprovals();
    expect(await decideApproval(deps(), tenantId, row!.id, 'reject')).toEqual({ result: 'rejected', id: row!.id });
    expect(await entry(row!.id)).toBeNull();
    const notice = await entry(`${row!.id}.notice`);
    expect(notice?.actions.map((a) => [a.tool, a.kind, a.args, a.idempotent])).toEqual([
      [
        'system:approval-rejected',
        'send_content',
        { text: 'A team member reviewed your request and did not approve it. Nothing was changed.' },
        false,
      ],
    ]);
    expect(notice?.contactId).toBe(row!.contactId);
    expect(await status(row!.id)).toBe('rejected');
    expect(published).toEqual([{ tenantId, turnId: `${row!.id}.notice` }]);
    expect((await decideApproval(deps(), tenantId, row!.id, 'approve')).result).toBe('already-decided');
    expect(await entry(row!.id)).toBeNull();
  });

  it('approving after the hour: expired instead — a notice, never the action', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
      status,
      late,
      published,
    } = await pendingApprovals();
    expect(await decideApproval(deps(late(row!)), tenantId, row!.id, 'approve')).toEqual({
      result: 'expired',
      id: row!.id,
    });
    expect(published).toEqual([{ tenantId, turnId: `${row!.id}.notice` }]);
    expect(await entry(row!.id)).toBeNull();
    expect((await entry(`${row!.id}.notice`))?.actions[0]?.args).toEqual({
      text: 'Your request was not reviewed in time. Nothing was changed.',
    });
    expect(await status(row!.id)).toBe('expired');
  });

  it('an unknown id, a confirmation id, or another tenant: not found, nothing written', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
    } = await pendingApprovals();
    const other = await pendingApprovals();
    const withConfirmation = await pinnedFixture([gatedAction('news', 'confirm')]);
    expect((await decideApproval(deps(), tenantId, 'ap_unknown', 'approve')).result).toBe('not-found');
    expect(
      (await decideApproval(deps(), withConfirmation.config.tenantId, withConfirmation.confirmation!.id, 'approve'))
        .result,
    ).toBe('not-found');
    expect((await decideApproval(deps(), other.tenantId, row!.id, 'approve')).result).toBe('not-found');
    expect(await entry(row!.id)).toBeNull();
  });

  it('terms altered in Redis: tampered, nothing performed; expired at once and the contact told', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
      status,
      published,
    } = await pendingApprovals();
    await overwriteTerms({ ...row!, actions: [{ ...row!.actions[0]!, args: { tag: 'everyone' } }] });
    expect(await decideApproval(deps(), tenantId, row!.id, 'approve')).toEqual({
      result: 'tampered',
      id: row!.id,
      retired: true,
    });
    expect(await entry(row!.id)).toBeNull();
    expect(await status(row!.id)).toBe('expired');
    expect((await entry(`${row!.id}.notice`))?.actions.map((a) => a.args)).toEqual([
      { text: 'Your request was not reviewed in time. Nothing was changed.' },
    ]);
    expect(published).toEqual([{ tenantId, turnId: `${row!.id}.notice` }]);
    // Out of the queue: the cron does not read it again. A second try is refused and tells nobody twice.
    expect(await session().one((r) => r.zscore(tenantKeys(tenantId).approvalQueue, row!.id))).toBeNull();
    expect(await decideApproval(deps(), tenantId, row!.id, 'approve')).toEqual({
      result: 'tampered',
      id: row!.id,
      retired: false,
    });
    expect(published).toHaveLength(1);
  });
});

describe('a rotation of SESSION_SECRET', () => {
  const rotated = { current: 'the-new-session-secret-after-rotation', previous: PIN_SECRET };

  it('with the previous secret kept: a row pinned before it is approved as usual', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
      status,
    } = await pendingApprovals();
    expect(await decideApproval({ ...deps(), pinSecret: rotated }, tenantId, row!.id, 'approve')).toEqual({
      result: 'approved',
      id: row!.id,
    });
    expect(await status(row!.id)).toBe('approved');
    expect((await entry(row!.id))?.actions).toEqual(row!.actions);
  });

  it('without it: the row cannot be verified, so it is expired, its contact told, and the cron stops reading it', async () => {
    const {
      tenantId,
      approvals: [unverifiable, later],
      deps,
      entry,
      status,
      late,
    } = await pendingApprovals(2);
    const lost = { current: rotated.current };
    // The cron's own pass, before either is due: the unverifiable row is not touched until it is due…
    expect(await expireDueApprovals({ ...deps(), pinSecret: lost }, tenantId)).toBe(0);
    expect(await status(unverifiable!.id)).toBe('pending');
    // …an approver's click finds it unverifiable and expires it now, with its notice.
    expect(await decideApproval({ ...deps(), pinSecret: lost }, tenantId, unverifiable!.id, 'approve')).toEqual({
      result: 'tampered',
      id: unverifiable!.id,
      retired: true,
    });
    expect(await status(unverifiable!.id)).toBe('expired');
    expect(await entry(unverifiable!.id)).toBeNull();
    expect(await entry(`${unverifiable!.id}.notice`)).not.toBeNull();
    // The cron, once the other is due, expires it with its notice and counts it.
    expect(await expireDueApprovals({ ...deps(late(later!)), pinSecret: lost }, tenantId)).toBe(1);
    expect(await status(later!.id)).toBe('expired');
    expect(await entry(`${later!.id}.notice`)).not.toBeNull();
    expect(await dueApprovalsByTenant(session(), [tenantId], late(later!))).toEqual(new Map());
  });
});

describe('expireDueApprovals: the sweeper expires what is due, and only that', () => {
  it('expires the rows past their hour, each with its notice; a later row stays pending', async () => {
    const {
      tenantId,
      approvals: [soon, later],
      deps,
      entry,
      status,
    } = await pendingApprovals(2);
    // Make `later` expire an hour after `soon`: rewrite its queue score only (its terms are signed).
    await session().one((r) =>
      r.zadd(tenantKeys(tenantId).approvalQueue, { score: Date.parse(soon!.expiresAt) + 3_600_000, member: later!.id }),
    );
    const at = new Date(Date.parse(soon!.expiresAt) + 1000);
    expect(await expireDueApprovals(deps(at), tenantId)).toBe(1);
    expect(await status(soon!.id)).toBe('expired');
    expect(await entry(`${soon!.id}.notice`)).not.toBeNull();
    expect(await status(later!.id)).toBe('pending');
    expect(await expireDueApprovals(deps(at), tenantId)).toBe(0);
  });

  it('nothing is due before the hour', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      status,
    } = await pendingApprovals();
    expect(await expireDueApprovals(deps(), tenantId)).toBe(0);
    expect(await status(row!.id)).toBe('pending');
  });
});

describe('listApprovals: the queue as the dashboard shows it', () => {
  it('pending rows only (a decided row leaves the queue), each with its card, tool and canonical arguments', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
    } = await pendingApprovals();
    await decideApproval(deps(), tenantId, row!.id, 'reject');
    const withPending = await pendingApprovals();
    expect(await listApprovals(session(), tenantId)).toEqual([]);
    expect(await listApprovals(session(), withPending.tenantId)).toEqual([
      {
        id: withPending.approvals[0]!.id,
        status: 'pending',
        card: withPending.approvals[0]!.card,
        tool: 'untag_contact',
        args: '{"note":{"a":2,"z":1},"tag":"vip0"}',
        contactId: withPending.inbound.contactId,
        turnId: withPending.approvals[0]!.turnId,
        createdAt: withPending.approvals[0]!.createdAt,
        expiresAt: withPending.approvals[0]!.expiresAt,
      },
    ]);
  });
});

describe("dueApprovalsByTenant: the cron's one read of every tenant's expired approvals", () => {
  it('one round trip for any number of tenants; only the tenants with a row past its expiry, with those rows', async () => {
    const a = await pendingApprovals(2);
    const b = await pendingApprovals(1);
    const idle = Array.from({ length: 30 }, (_, i) => `idle-${a.tenantId}-${i}`.slice(0, 63));
    const counted = session();
    // At a's expiry: a's rows are due; b's row (created later, same hour) may or may not be.
    const late = a.late(a.approvals[1]!);
    const due = await dueApprovalsByTenant(counted, [...idle, a.tenantId, b.tenantId], late);
    expect(counted.roundTrips).toBe(1);
    expect(due.get(a.tenantId)?.sort()).toEqual(a.approvals.map((r) => r.id).sort());
    for (const id of idle) expect(due.has(id)).toBe(false);
    // Before any expiry nothing is due, and the expiry then runs on exactly what was read.
    expect((await dueApprovalsByTenant(session(), [a.tenantId], a.now)).size).toBe(0);
    expect(await expireDueApprovals(a.deps(late), a.tenantId, due.get(a.tenantId))).toBe(2);
  });
});

describe('decideApproval: approving what the configuration no longer allows', () => {
  /** The approval's tool removed from the tenant's configuration since the row was pinned. */
  const withoutTool = (config: TenantConfig): TenantConfig => ({
    ...config,
    tools: config.tools.filter((t) => t.name !== 'untag_contact'),
  });

  it('refused: nothing performed, the contact told why in words, the row refused; a second decision finds it decided', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
      status,
      published,
      config,
    } = await pendingApprovals();
    const changed = { ...deps(), config: withoutTool(config) };
    expect(await decideApproval(changed, tenantId, row!.id, 'approve')).toEqual({
      result: 'refused',
      id: row!.id,
      problem: 'remove tag "vip0": tool "untag_contact" is not configured',
    });
    expect(await entry(row!.id)).toBeNull();
    expect(await status(row!.id)).toBe('refused');
    const notice = await entry(`${row!.id}.notice`);
    expect(notice?.actions).toEqual([
      {
        id: `${row!.id}.notice`,
        tool: 'system:approval-refused',
        kind: 'send_content',
        args: {
          text: expect.stringMatching(
            /^This can no longer be done, because the business changed its settings: .*vip0.*\. Nothing was changed\.$/,
          ),
        },
        effect: 'write',
        idempotent: false,
        gate: 'none',
        summary: 'tell the contact the request was refused',
      },
    ]);
    expect(notice?.stagedByTurnId).toBe(row!.turnId);
    expect(published).toEqual([{ tenantId, turnId: `${row!.id}.notice` }]);
    expect(await decideApproval(changed, tenantId, row!.id, 'approve')).toEqual({
      result: 'already-decided',
      id: row!.id,
      status: 'refused',
    });
    expect(published).toHaveLength(1);
  });

  it('two refused approvals at once refuse once and tell the contact once', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      published,
      config,
    } = await pendingApprovals();
    const changed = { ...deps(), config: withoutTool(config) };
    const outcomes = await Promise.all([1, 2].map(() => decideApproval(changed, tenantId, row!.id, 'approve')));
    expect(outcomes.map((o) => o.result).sort()).toEqual(['already-decided', 'refused']);
    expect(published).toHaveLength(1);
  });

  it('past its hour: expired, not refused', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      status,
      late,
      entry,
      config,
    } = await pendingApprovals();
    const changed = { ...deps(late(row!)), config: withoutTool(config) };
    expect(await decideApproval(changed, tenantId, row!.id, 'approve')).toEqual({ result: 'expired', id: row!.id });
    expect(await status(row!.id)).toBe('expired');
    expect((await entry(`${row!.id}.notice`))?.actions[0]?.tool).toBe('system:approval-expired');
  });

  it('a rejection is not re-checked: rejected, with the rejection notice', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      status,
      config,
    } = await pendingApprovals();
    const changed = { ...deps(), config: withoutTool(config) };
    expect(await decideApproval(changed, tenantId, row!.id, 'reject')).toEqual({ result: 'rejected', id: row!.id });
    expect(await status(row!.id)).toBe('rejected');
  });
});

describe('the notices and the expiry, in detail', () => {
  it("a rejection's and an expiry's notice: one send to the contact, ungated, named after the row", async () => {
    const {
      tenantId,
      approvals: [rejected, expired],
      deps,
      entry,
      late,
    } = await pendingApprovals(2);
    await decideApproval(deps(), tenantId, rejected!.id, 'reject');
    await decideApproval(deps(late(expired!)), tenantId, expired!.id, 'approve');
    for (const [row, why] of [
      [rejected!, 'rejected'],
      [expired!, 'expired'],
    ] as const) {
      const notice = await entry(`${row.id}.notice`);
      expect(notice?.turnId).toBe(`${row.id}.notice`);
      expect(notice?.actions.map((a) => [a.id, a.tool, a.effect, a.gate, a.summary])).toEqual([
        [`${row.id}.notice`, `system:approval-${why}`, 'write', 'none', `tell the contact the request was ${why}`],
      ]);
    }
  });

  it('a tampered row is expired with the expiry notice, and the operator warned', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      entry,
    } = await pendingApprovals();
    await overwriteTerms({ ...row!, card: 'changed' });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect((await decideApproval(deps(), tenantId, row!.id, 'approve')).result).toBe('tampered');
      expect(warn).toHaveBeenCalledWith(
        `approval ${row!.id} of tenant ${tenantId} failed verification: expired, contact told`,
      );
    } finally {
      warn.mockRestore();
    }
    expect((await entry(`${row!.id}.notice`))?.actions[0]?.tool).toBe('system:approval-expired');
  });

  it('retireUnverifiable: only a pending row, and only if the stored row is still the one read', async () => {
    const {
      tenantId,
      approvals: [row, decided],
      deps,
      published,
      status,
    } = await pendingApprovals(2);
    await decideApproval(deps(), tenantId, decided!.id, 'reject');
    const decidedRow = (await loadPinned(session(), tenantId, decided!.id))!;
    expect(await retireUnverifiable(deps(), decidedRow)).toBe(false);
    // Read, then changed again before the script runs: the script refuses, nothing is published.
    await overwriteTerms({ ...row!, card: 'changed once' });
    const read = (await loadPinned(session(), tenantId, row!.id))!;
    await overwriteTerms({ ...row!, card: 'changed twice' });
    const before = published.length;
    expect(await retireUnverifiable(deps(), read)).toBe(false);
    expect(published).toHaveLength(before);
    expect(await status(row!.id)).toBe('pending');
  });

  it('expireDueApprovals counts only what it expired: not an unknown id, nor a row decided meanwhile', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      late,
      published,
    } = await pendingApprovals();
    await decideApproval(deps(), tenantId, row!.id, 'approve');
    const before = published.length;
    expect(await expireDueApprovals(deps(late(row!)), tenantId, [row!.id, 'ap_unknown'])).toBe(0);
    expect(published).toHaveLength(before);
  });

  it('listApprovals skips a queued id whose row is gone; dueApprovalsByTenant of no tenant is empty', async () => {
    const { tenantId, approvals } = await pendingApprovals();
    await session().one((r) => r.zadd(tenantKeys(tenantId).approvalQueue, { score: 1, member: 'ap_gone' }));
    expect((await listApprovals(session(), tenantId)).map((v) => v.id)).toEqual([approvals[0]!.id]);
    const counted = session();
    expect((await dueApprovalsByTenant(counted, [], new Date())).size).toBe(0);
    expect(counted.roundTrips).toBe(0);
  });
});

describe('decideApproval: a row changed or decided between the read and the decision', () => {
  /** The session, with `before(n)` run ahead of its n-th single command (the decision scripts). */
  function racing(before: (n: number) => Promise<void>): RedisSession {
    const s = session();
    let n = 0;
    return new Proxy(s, {
      get(target, prop, receiver) {
        if (prop === 'one')
          return async (fn: Parameters<RedisSession['one']>[0]) => {
            await before(++n);
            return target.one(fn);
          };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  it('terms changed after they verified: tampered, nothing performed nor published (approve, and a refused approve)', async () => {
    for (const refuse of [false, true]) {
      const {
        tenantId,
        approvals: [row],
        deps,
        entry,
        status,
        published,
        config,
      } = await pendingApprovals();
      const changed = racing(async (n) => {
        if (n === 1) await overwriteTerms({ ...row!, card: 'changed in between' });
      });
      const cfg = refuse ? { ...config, tools: config.tools.filter((t) => t.name !== 'untag_contact') } : config;
      expect(await decideApproval({ ...deps(), session: changed, config: cfg }, tenantId, row!.id, 'approve')).toEqual({
        result: 'tampered',
        id: row!.id,
      });
      expect(await status(row!.id)).toBe('pending');
      expect(await entry(row!.id)).toBeNull();
      expect(await entry(`${row!.id}.notice`)).toBeNull();
      expect(published).toEqual([]);
    }
  });

  it('too late, and rejected by someone else before the expiry is written: already decided, as they left it', async () => {
    const {
      tenantId,
      approvals: [row],
      deps,
      late,
      published,
    } = await pendingApprovals();
    const raced = racing(async (n) => {
      if (n === 2) await session().one((r) => r.set(tenantKeys(tenantId).pinnedStatus(row!.id), 'rejected'));
    });
    expect(await decideApproval({ ...deps(late(row!)), session: raced }, tenantId, row!.id, 'approve')).toEqual({
      result: 'already-decided',
      id: row!.id,
      status: 'rejected',
    });
    expect(published).toEqual([]);
  });

  it('listApprovals shows a stored row without pinned calls with no tool and empty arguments, rather than failing', async () => {
    const {
      tenantId,
      approvals: [row],
    } = await pendingApprovals();
    await overwriteTerms({ ...row!, pinned: [] });
    expect(await listApprovals(session(), tenantId)).toMatchObject([{ id: row!.id, tool: '', args: '{}' }]);
  });
});
