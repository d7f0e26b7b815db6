import { describe, expect, it } from 'vitest';
import { deliveryKeyDigest, tenantKeys } from '../../core/storage/keys.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import { enterReplyOrder } from '../../outbox/reply-order.js';
import { inboundFor, stageConfig } from '../../test/support/turn-stage.js';
import { session } from '../../test/support/workers-env.js';
import { claimDelivery } from './claim-delivery.js';
import { releaseUnfinishedTurn } from './release-unfinished-turn.js';
import { replySequenceOf } from './reply-sequence.js';

/** What the turn holds in Redis: claim owner, open-claim listing, kept job, reply-order place. */
async function holdings(inbound: InboundMessage, turnId: string) {
  const keys = tenantKeys(inbound.tenantId);
  const claimKey = keys.claim(await deliveryKeyDigest(inbound.contactId, inbound.messageKey));
  const member = (await replySequenceOf(inbound))?.member ?? 'none';
  const [owner, open, job, place] = await session().pipeline((p) => {
    p.get(claimKey);
    p.zscore(keys.openClaims, turnId);
    p.get(keys.claimJob(turnId));
    p.zscore(keys.replyOrder(inbound.contactId), member);
  });
  return { owner: owner ?? null, open: open != null, job: job != null, place: place != null };
}
async function claimed(channel: InboundMessage['channel'] = 'manychat') {
  const config = stageConfig();
  const inbound = inboundFor(config, 'hello', {
    channel,
    contact: { fields: {}, lastInteraction: new Date().toISOString() },
  });
  const turnId = `turn_${crypto.randomUUID().replaceAll('-', '')}`;
  await claimDelivery(session(), config.tenantId, inbound.messageKey, inbound.contactId, turnId, {
    job: { turnId, inbound },
    dueAt: Date.now(),
  });
  const sequence = await replySequenceOf(inbound);
  if (sequence) await enterReplyOrder(session(), config.tenantId, inbound.contactId, sequence);
  return { inbound, turnId };
}

describe('releaseUnfinishedTurn: a turn that will not run gives back what it holds', () => {
  it('its claim, its open-claim listing and kept job, and (Messenger) its place in the reply order; a second call finds nothing', async () => {
    const { inbound, turnId } = await claimed('messenger');
    expect(await holdings(inbound, turnId)).toEqual({ owner: turnId, open: true, job: true, place: true });
    expect(await releaseUnfinishedTurn(session(), { turnId, inbound })).toEqual({ kind: 'released', released: true });
    expect(await holdings(inbound, turnId)).toEqual({ owner: null, open: false, job: false, place: false });
    expect(await releaseUnfinishedTurn(session(), { turnId, inbound })).toEqual({ kind: 'released', released: false });
    // The delivery can be claimed again, by a new turn.
    expect(
      (await claimDelivery(session(), inbound.tenantId, inbound.messageKey, inbound.contactId, 'turn_next')).claimed,
    ).toBe(true);
  });

  it("a claim that names another turn (a duplicate's job) is not taken from it", async () => {
    const { inbound, turnId } = await claimed();
    expect(await releaseUnfinishedTurn(session(), { turnId: 'turn_other', inbound })).toEqual({
      kind: 'released',
      released: false,
    });
    expect(await holdings(inbound, turnId)).toMatchObject({ owner: turnId, open: true, job: true });
  });

  it('a turn that committed is left alone: its claim keeps joining retries to it', async () => {
    const { inbound, turnId } = await claimed();
    await session().one((r) => r.set(tenantKeys(inbound.tenantId).turn(turnId), '{}'));
    expect(await releaseUnfinishedTurn(session(), { turnId, inbound })).toEqual({ kind: 'already-done' });
    expect(await holdings(inbound, turnId)).toMatchObject({ owner: turnId, open: true, job: true });
  });
});
