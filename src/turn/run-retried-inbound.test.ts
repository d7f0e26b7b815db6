import { describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { reply, scriptedModel } from '../../test/support/scripted-model.js';
import { inboundFor, stageConfig, stageDeps, stored } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { claimDelivery } from './claim-delivery.js';
import { runRetriedInbound } from './run-retried-inbound.js';
import { finishDueAt } from './turn-engine.js';

const brochure = {
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: reply('Here comes the brochure.'),
};

/**
 * Redis slower than the client's 2 s: the webhook's claim executed after its timeout, so the
 * webhook kept the delivery for a retry while Redis holds a claim whose turn never ran. The
 * retry must finish that turn, not answer "duplicate" and leave the contact to the sweep.
 */
describe('runRetriedInbound: an open claim with no committed turn', () => {
  async function lateClaim() {
    const config = stageConfig();
    const inbound = inboundFor(config, 'brochure please');
    const lateTurnId = `turn_late${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    const claim = await claimDelivery(session(), config.tenantId, inbound.messageKey, inbound.contactId, lateTurnId, {
      job: { turnId: lateTurnId, inbound },
      dueAt: finishDueAt(config),
    });
    expect(claim.claimed).toBe(true);
    return { config, inbound, lateTurnId };
  }

  it('the retry finishes the claimed turn under its id, once: reply and flow through the outbox', async () => {
    const { config, inbound, lateTurnId } = await lateClaim();
    const deps = stageDeps({ model: scriptedModel([brochure]) });
    const outcome = await runRetriedInbound(deps, config, inbound);
    expect(outcome.kind).toBe('finished');
    expect(outcome.kind === 'finished' && outcome.record.turnId).toBe(lateTurnId);
    const record = (await stored(config.tenantId, (k) => k.turn(lateTurnId))) as TurnRecord | null;
    expect(record).toMatchObject({ decision: 'pass', deferred: true });
    const entry = (await stored(config.tenantId, (k) => k.outbox(lateTurnId))) as OutboxEntry | null;
    expect(entry?.actions.map((a) => a.kind)).toEqual(['send_content', 'send_flow']);
    expect(deps.published).toEqual([{ tenantId: config.tenantId, turnId: lateTurnId }]);
    // The claim is no longer open: the sweep has nothing left to finish.
    expect(await session().one((r) => r.zscore(tenantKeys(config.tenantId).openClaims, lateTurnId))).toBeNull();
    // QStash delivers at least once: a second copy is a duplicate and runs nothing.
    const again = stageDeps({ model: scriptedModel([brochure]) });
    expect(await runRetriedInbound(again, config, inbound)).toEqual({ kind: 'duplicate', turnId: lateTurnId });
    expect(again.published).toEqual([]);
  });

  it('a claim whose turn committed is a duplicate: nothing runs, nothing is published', async () => {
    const { config, inbound, lateTurnId } = await lateClaim();
    const first = stageDeps({ model: scriptedModel([brochure]) });
    await runRetriedInbound(first, config, inbound);
    const model = scriptedModel([brochure]);
    const deps = stageDeps({ model });
    expect(await runRetriedInbound(deps, config, inbound)).toEqual({ kind: 'duplicate', turnId: lateTurnId });
    expect(deps.published).toEqual([]);
  });

  it('a claim that is not listed open (given back, or another path) is left alone: a duplicate', async () => {
    const { config, inbound, lateTurnId } = await lateClaim();
    await session().one((r) => r.zrem(tenantKeys(config.tenantId).openClaims, lateTurnId));
    const deps = stageDeps({ model: scriptedModel([brochure]) });
    expect(await runRetriedInbound(deps, config, inbound)).toEqual({ kind: 'duplicate', turnId: lateTurnId });
    expect(await stored(config.tenantId, (k) => k.turn(lateTurnId))).toBeNull();
  });
});
