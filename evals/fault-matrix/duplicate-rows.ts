import { signQStashDelivery } from '../../test/support/qstash-signature.js';
import { DELIVERY_PATH } from '../../outbox/publisher.js';
import type { FaultEnvironment } from './environment.js';
import { ACTION_SETUPS } from './manychat-rows.js';
import { observeRow } from './observe.js';
import type { Row } from './row.js';
import { createWorld, newContact, postWebhook, scriptModel, type RowWorld } from './world.js';

/**
 * At-least-once from both sides, with a ManyChat slow enough (3 s a call) that the copies overlap:
 * ManyChat sending the same webhook 20 times at once (one turn; the others join it), and QStash
 * delivering the same outbox entry 20 times at once (the lease lets one perform, the others are
 * told to come back; QStash's own delivery, let through afterwards, finds it done).
 */
const brochure = ACTION_SETUPS.send_flow;
const COPIES = 20;

async function slowWorld(env: FaultEnvironment, label: string): Promise<{ world: RowWorld; contact: string }> {
  const world = await createWorld(env, label);
  const contact = newContact(env, world);
  scriptModel(env, world, contact, [brochure.step]);
  env.stack.manychat.injectFault({
    path: brochure.faultPath,
    pageId: world.pageId,
    count: COPIES,
    kind: 'slow',
    delayMs: 3000,
  });
  return { world, contact };
}

const duplicateWebhooks: Row = {
  name: `${COPIES} concurrent duplicate webhooks, ManyChat slow 3 s`,
  exclusive: false,
  expected: { performed: 1, unknown: 0, dead: 0, says: 'one turn; the others join it; flow sent once' },
  async run(env) {
    const { world, contact } = await slowWorld(env, 'dup-webhooks');
    const messages = await Promise.all(
      Array.from({ length: COPIES }, () => postWebhook(env, world, contact, brochure.text, 'same-message-key')),
    );
    return { messages, outcome: await observeRow(env, world, messages, 60_000) };
  },
};

const duplicateDeliveries: Row = {
  name: `${COPIES} concurrent deliveries of one entry, ManyChat slow 3 s`,
  // QStash's own delivery is held back (the broker paused) so that the 20 copies race each other.
  exclusive: true,
  expected: { performed: 1, unknown: 0, dead: 0, says: 'the lease lets one perform; flow sent once' },
  async run(env) {
    const { world, contact } = await slowWorld(env, 'dup-deliveries');
    env.stack.qstash.pause();
    let sent;
    let statuses: number[];
    try {
      sent = await postWebhook(env, world, contact, brochure.text);
      const body = JSON.stringify({ tenantId: world.tenantId, turnId: sent.answer.turnId });
      const url = `${env.workerUrl}${DELIVERY_PATH}`;
      statuses = await Promise.all(
        Array.from({ length: COPIES }, async () => {
          const signature = await signQStashDelivery({ key: env.stack.facts.qstash.currentSigningKey, url, body });
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'upstash-signature': signature },
            body,
            signal: AbortSignal.timeout(60_000),
          });
          await res.text();
          return res.status;
        }),
      );
    } finally {
      env.stack.qstash.resume();
    }
    const counts = new Map<number, number>();
    for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
    const notes = [`the ${COPIES} deliveries answered ${[...counts].map(([s, n]) => `${s}×${n}`).join(', ')}`];
    return { messages: [sent], outcome: await observeRow(env, world, [sent], 60_000), notes };
  },
};

export const duplicateRows: Row[] = [duplicateWebhooks, duplicateDeliveries];
