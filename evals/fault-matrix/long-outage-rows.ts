import { randomBytes } from 'node:crypto';
import { INBOUND_RETRY_PATH } from '../../core/inbound-retry-job.js';
import { INBOUND_RETRY_DELAY_SECONDS } from '../../outbox/inbound-retry-publisher.js';
import type { FaultEnvironment } from './environment.js';
import { ACTION_SETUPS } from './manychat-rows.js';
import {
  itemBody,
  messengerWorld,
  newPsid,
  observeMessenger,
  postItem,
  postMessage,
  type MessengerWorld,
} from './messenger-rows.js';
import { observeRow, type RowOutcome } from './observe.js';
import { restartRedis } from './redis-restart.js';
import type { Row } from './row.js';
import { createWorld, newContact, postWebhook, scriptModel, sleep, type SentMessage } from './world.js';

/**
 * Issue 28's outage goal as a row: Redis down for ten minutes, on warm and on cold isolates, on
 * ManyChat and on Messenger, loses no message and doubles no action.
 *
 * - ManyChat, warm isolate (the tenant cached): each delivery is kept as a QStash inbound retry.
 * - ManyChat, cold isolate (Worker restarted during the outage, nothing cached): each delivery is
 *   kept unauthenticated (a keyed hash of its secret), authenticated when it runs.
 * - Messenger, warm: Meta gets its 200 and the event is kept as an inbound retry.
 * - Messenger, cold: the page's owner cannot be read, so Meta is answered 503 and redelivers the
 *   same bytes (Meta retries a failed delivery for hours; this row retries once a minute).
 *
 * Every kept delivery runs on QStash's schedule (INBOUND_RETRY_DELAY: 15 s, then 30 s … 8 min;
 * the sixth attempt comes ≈ 15¾ min after the message), so the row waits for that schedule in
 * real time: about 17 minutes. `--long-outage-seconds N` shortens the outage for a quick check of
 * the row itself; the matrix's figures are quoted at the default 600.
 */
export const LONG_OUTAGE_DEFAULT_SECONDS = 600;
/** The last inbound-retry attempt comes this long after the message (15 + 30 + 60 + 120 + 240 + 480 s). */
const LAST_RETRY_AFTER_MS = (INBOUND_RETRY_DELAY_SECONDS + 930) * 1000;
const META_RETRY_EVERY_MS = 60_000;

const brochure = ACTION_SETUPS.send_flow;
const reply = (text: string) => ({ reply: { text, escalate: false, confidence: 0.9, reason: 'row' } });

/** A Messenger message whose bytes stay the same across Meta's redeliveries. */
function messengerDelivery(world: MessengerWorld, psid: string, text: string) {
  const mid = `m_${randomBytes(8).toString('hex')}`;
  const item = { timestamp: Date.now(), message: { mid, text } };
  return { psid, messageKey: `mid:${mid}`, item, raw: itemBody(world, psid, item) };
}

function sumOutcomes(a: RowOutcome, b: RowOutcome): RowOutcome {
  return {
    accepted: a.accepted + b.accepted,
    turns: a.turns + b.turns,
    actions: a.actions + b.actions,
    performed: a.performed + b.performed,
    unknown: a.unknown + b.unknown,
    dead: a.dead + b.dead,
    lost: a.lost + b.lost,
    duplicated: a.duplicated + b.duplicated,
    repeats: a.repeats + b.repeats,
    performedKinds: [a.performedKinds, b.performedKinds].filter((k) => k && k !== '—').join(', ') || '—',
    details: [...a.details.map((d) => `ManyChat: ${d}`), ...b.details.map((d) => `Messenger: ${d}`)],
  };
}

export function longOutageRow(outageSeconds = LONG_OUTAGE_DEFAULT_SECONDS): Row {
  const minutes =
    outageSeconds % 60 === 0 ? `${outageSeconds / 60} minute${outageSeconds === 60 ? '' : 's'}` : `${outageSeconds} s`;
  return {
    name: `Redis down ${minutes}: ManyChat and Messenger, warm and cold isolates (2 messages each)`,
    exclusive: true,
    // ManyChat: 4 brochure turns × (reply + flow). Messenger: the warm-up's reply and 4 replies.
    expected: {
      performed: 13,
      unknown: 0,
      dead: 0,
      says: 'ManyChat held and kept (cold: unauthenticated, checked when run); Messenger warm 200 and kept, cold 503 until Meta redelivers after Redis is back; each turn runs once',
    },
    async run(env: FaultEnvironment) {
      const manychat = await createWorld(env, 'redis-long', { holdingReply: 'One moment please…' });
      const messenger = await messengerWorld(env, 'redis-long');
      const notes: string[] = [];

      // Warm-up while Redis answers: the isolate now holds both tenants.
      const warmMc = newContact(env, manychat);
      scriptModel(env, manychat, warmMc, [reply('Hello!')]);
      const mcMessages: SentMessage[] = [await postWebhook(env, manychat, warmMc, 'Hello there')];
      const warmPsid = newPsid(env, messenger);
      scriptModel(env, messenger, warmPsid, [reply('Hello!')]);
      const msMessages: SentMessage[] = [await postMessage(env, messenger, warmPsid, 'Hello there')];
      await sleep(1500);

      const brochureContact = () => {
        const c = newContact(env, manychat);
        scriptModel(env, manychat, c, [brochure.step]);
        return c;
      };
      const messengerContact = () => {
        const p = newPsid(env, messenger);
        scriptModel(env, messenger, p, [reply('Our classes start at 7.')]);
        return p;
      };
      const mcWarm = [brochureContact(), brochureContact()];
      const mcCold = [brochureContact(), brochureContact()];
      const msWarm = [messengerContact(), messengerContact()];
      const msCold = [messengerContact(), messengerContact()];

      await env.redis.stop();
      const downAt = Date.now();
      let lastKeptAt = downAt;
      const coldRedeliveries: { delivery: ReturnType<typeof messengerDelivery>; answer: SentMessage }[] = [];
      /** Meta's redelivery, the same bytes, of each event it was refused. */
      const redeliverRefused = async () => {
        for (const r of coldRedeliveries)
          if (r.answer.answer.status !== 200) {
            const { psid, messageKey, item, raw } = r.delivery;
            r.answer = await postItem(env, messenger, psid, messageKey, item, raw);
          }
      };
      try {
        for (const c of mcWarm) mcMessages.push(await postWebhook(env, manychat, c, brochure.text));
        for (const p of msWarm) msMessages.push(await postMessage(env, messenger, p, 'When do classes start?'));
        // A new isolate: nothing of either tenant in memory, and Redis does not answer.
        await env.stack.restartWorker();
        for (const c of mcCold) mcMessages.push(await postWebhook(env, manychat, c, brochure.text));
        for (const p of msCold) {
          const delivery = messengerDelivery(messenger, p, 'When do classes start?');
          coldRedeliveries.push({
            delivery,
            answer: await postItem(env, messenger, p, delivery.messageKey, delivery.item, delivery.raw),
          });
        }
        lastKeptAt = Date.now();
        notes.push(
          `during the outage: ManyChat ${mcMessages
            .slice(1)
            .map((m) => `${m.answer.status}${m.answer.storageDown ? ' held' : ''}`)
            .join(', ')}; Messenger warm ${msMessages
            .slice(1)
            .map((m) => m.answer.status)
            .join(', ')}, cold ${coldRedeliveries.map((r) => r.answer.answer.status).join(', ')}`,
        );
        // Meta redelivers what it was refused; the outage lasts its full length.
        while (Date.now() - downAt < outageSeconds * 1000) {
          await sleep(Math.min(META_RETRY_EVERY_MS, outageSeconds * 1000 - (Date.now() - downAt)));
          if (Date.now() - downAt < outageSeconds * 1000) await redeliverRefused();
        }
      } finally {
        await restartRedis(env);
      }
      const downFor = Math.round((Date.now() - downAt) / 1000);
      // Redis is back: Meta's next redelivery of each refused event is accepted.
      for (let tries = 0; coldRedeliveries.some((r) => r.answer.answer.status !== 200) && tries < 5; tries++) {
        if (tries) await sleep(META_RETRY_EVERY_MS);
        await redeliverRefused();
      }
      msMessages.push(...coldRedeliveries.map((r) => r.answer));
      notes.push(
        `Redis down ${downFor} s; Messenger cold redeliveries answered ${coldRedeliveries.map((r) => r.answer.answer.status).join(', ')}`,
      );

      // The kept deliveries run on QStash's schedule: wait past the last attempt of the last one kept.
      const waitMs = Math.max(60_000, lastKeptAt + LAST_RETRY_AFTER_MS + 60_000 - Date.now());
      const mcOutcome = await observeRow(env, manychat, mcMessages, waitMs);
      const msOutcome = await observeMessenger(env, messenger, msMessages, 60_000);
      const attempts = env.stack.qstash
        .messages()
        .filter(
          (m) =>
            m.url.endsWith(INBOUND_RETRY_PATH) &&
            [manychat.tenantId, messenger.tenantId].some((t) => m.body?.includes(`"${t}"`)),
        );
      notes.push(
        `inbound retries: ${attempts.length}, attempts ${attempts.map((m) => m.attempts.length).join('/')}, states ${[...new Set(attempts.map((m) => m.state))].join(', ')}`,
      );
      return { messages: [...mcMessages, ...msMessages], outcome: sumOutcomes(mcOutcome, msOutcome), notes };
    },
  };
}
