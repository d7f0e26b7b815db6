import { FINISH_TURN_PATH } from '../../core/finish-turn-job.js';
import { DUE_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { safetyIdentifierFor } from '../../dev/model-sandbox.js';
import type { FaultEnvironment } from './environment.js';
import { ACTION_SETUPS } from './manychat-rows.js';
import { observeRow } from './observe.js';
import type { Row } from './row.js';
import {
  createWorld,
  newContact,
  postWebhook,
  runCron,
  scriptModel,
  sleep,
  type RowWorld,
  type SentMessage,
} from './world.js';
import { restartRedis } from './redis-restart.js';
import { outboxDueAt } from '../../core/storage/due-index.js';

/**
 * Outages of the parts around the Worker, and the Worker itself dying. Each runs alone (it stops
 * Redis, fails or pauses QStash, or restarts wrangler dev). Where only the cron would act, the
 * row plays the clock as the evals do: it moves the stored due time into the past and runs the
 * Worker's own scheduled handler.
 */
const brochure = ACTION_SETUPS.send_flow;

/** Contacts scripted to ask for the brochure, one message each. */
function brochureContacts(env: FaultEnvironment, world: RowWorld, n: number, stepOverrides: object = {}): string[] {
  return Array.from({ length: n }, () => {
    const contact = newContact(env, world);
    scriptModel(env, world, contact, [{ ...brochure.step, ...stepOverrides }]);
    return contact;
  });
}

const performedCalls = (env: FaultEnvironment, world: RowWorld) =>
  env.stack.manychat.calls({ pageId: world.pageId }).filter((c) => c.status === 200).length;

const redisDown: Row = {
  name: 'Redis down (5 messages) and back',
  exclusive: true,
  expected: { performed: 10, unknown: 0, dead: 0, says: 'held, kept in QStash, run once when back: reply + flow each' },
  async run(env) {
    const world = await createWorld(env, 'redis-down', { holdingReply: 'One moment please…' });
    // A first message while Redis answers: the isolate now holds the tenant.
    const warm = newContact(env, world);
    scriptModel(env, world, warm, [{ reply: { text: 'Hello!', escalate: false, confidence: 0.9, reason: 'warm' } }]);
    const messages: SentMessage[] = [await postWebhook(env, world, warm, 'Hello there')];
    const contacts = brochureContacts(env, world, 5);
    await env.redis.stop();
    const notes: string[] = [];
    try {
      for (const c of contacts) messages.push(await postWebhook(env, world, c, brochure.text));
      const health = await fetch(`${env.workerUrl}/v1/health`);
      notes.push(
        `health during the outage: ${health.status} ${JSON.stringify(((await health.json()) as { redis?: unknown }).redis)}`,
      );
    } finally {
      await restartRedis(env);
    }
    // Kept deliveries come back from QStash 15 s later (INBOUND_RETRY_DELAY_SECONDS).
    return { messages, outcome: await observeRow(env, world, messages, 120_000), notes };
  },
};

const redisDownCold: Row = {
  name: 'Redis down, Worker restarted (cold isolate), 3 messages, Redis back',
  exclusive: true,
  expected: {
    performed: 6,
    unknown: 0,
    dead: 0,
    says: 'held though the isolate never read the tenant; authenticated when run; reply + flow once each',
  },
  async run(env) {
    const world = await createWorld(env, 'redis-down-cold');
    const contacts = brochureContacts(env, world, 3);
    await env.redis.stop();
    const messages: SentMessage[] = [];
    try {
      // A new isolate: nothing of the tenant in memory, and Redis does not answer.
      await env.stack.restartWorker();
      for (const c of contacts) messages.push(await postWebhook(env, world, c, brochure.text));
    } finally {
      await restartRedis(env);
    }
    return { messages, outcome: await observeRow(env, world, messages, 120_000) };
  },
};

/** Moves turns' outbox entries five minutes into the past (the sweeper's age) and runs the cron. */
async function sweepNow(env: FaultEnvironment, world: RowWorld, turnIds: string[]): Promise<string> {
  const keys = tenantKeys(world.tenantId);
  for (const turnId of turnIds)
    await env.session.multi((m) => {
      m.zadd(keys.outboxPending, { xx: true }, { score: Date.now() - 6 * 60_000, member: turnId });
      // Time moved for this entry: the tenant's due time in the cron's index moves with it.
      m.zadd(DUE_INDEX_KEY, { lt: true }, { score: outboxDueAt(Date.now() - 6 * 60_000), member: world.tenantId });
    });
  return `cron: ${await runCron(env)}`;
}

const redisDownDuringDelivery: Row = {
  name: 'Redis down while 2 committed entries are delivered',
  exclusive: true,
  expected: {
    performed: 2,
    unknown: 0,
    dead: 0,
    says: 'deliveries answer 503 (Retry-After) and are retried; the cron sweep publishes again; each done once',
  },
  async run(env) {
    const world = await createWorld(env, 'redis-down-delivery');
    const contacts = brochureContacts(env, world, 2);
    env.stack.qstash.pause();
    let messages: SentMessage[];
    try {
      messages = await Promise.all(contacts.map((c) => postWebhook(env, world, c, brochure.text)));
      await env.redis.stop();
    } finally {
      env.stack.qstash.resume();
    }
    const notes: string[] = [];
    try {
      // The broker retries (200 ms base) while Redis is down; every attempt fails.
      await sleep(9000);
      const turnIds = new Set(messages.map((m) => m.answer.turnId));
      const tried = env.stack.qstash
        .messages()
        .filter((m) => [...turnIds].some((t) => t && (m.body ?? '').includes(t)));
      notes.push(
        `QStash during the outage: ${tried.map((m) => `${m.state} [${m.attempts.map((a) => a.status ?? a.error ?? '?').join(',')}]`).join('; ')}`,
      );
    } finally {
      await restartRedis(env);
    }
    notes.push(
      await sweepNow(
        env,
        world,
        messages.flatMap((m) => (m.answer.turnId ? [m.answer.turnId] : [])),
      ),
    );
    return { messages, outcome: await observeRow(env, world, messages, 30_000), notes };
  },
};

const qstashPublishFailing: Row = {
  name: 'QStash publish failing (finish-turn job and delivery)',
  exclusive: true,
  expected: { performed: 1, unknown: 0, dead: 0, says: 'entry stays pending; the cron sweep publishes it; done once' },
  async run(env) {
    const world = await createWorld(env, 'publish-fails');
    const [contact] = brochureContacts(env, world, 1);
    // The turn's two publishes: its finish-turn job (up front) and its delivery (after the commit).
    env.stack.qstash.failNextPublishes(2);
    const sent = await postWebhook(env, world, contact!, brochure.text);
    await sleep(2000);
    env.stack.qstash.failNextPublishes(0);
    const notes = [`ManyChat calls before the cron: ${performedCalls(env, world)}`];
    // Five minutes later the sweeper publishes it again.
    notes.push(await sweepNow(env, world, sent.answer.turnId ? [sent.answer.turnId] : []));
    return { messages: [sent], outcome: await observeRow(env, world, [sent], 30_000), notes };
  },
};

const deliveriesPaused: Row = {
  name: 'QStash deliveries paused (3 messages), then resumed',
  exclusive: true,
  expected: { performed: 3, unknown: 0, dead: 0, says: 'answered now; performed once each after resume' },
  async run(env) {
    const world = await createWorld(env, 'paused');
    const contacts = brochureContacts(env, world, 3);
    env.stack.qstash.pause();
    let messages: SentMessage[];
    let during: number;
    try {
      messages = await Promise.all(contacts.map((c) => postWebhook(env, world, c, brochure.text)));
      await sleep(3000);
      during = performedCalls(env, world);
    } finally {
      env.stack.qstash.resume();
    }
    return {
      messages,
      outcome: await observeRow(env, world, messages, 30_000),
      notes: [`ManyChat calls while paused: ${during}`],
    };
  },
};

/** A deferred turn whose model takes 8 s, then a Worker restart while it thinks. */
async function killedMidTurn(env: FaultEnvironment, label: string, loseFinishJob: boolean) {
  const world = await createWorld(env, label, {
    deadlineMs: 1500,
    asyncDeadlineMs: 5000,
    holdingReply: 'One moment please…',
  });
  const contact = newContact(env, world);
  scriptModel(env, world, contact, [
    { ...brochure.step, latencyMs: 8000, reply: { ...brochure.step.reply, text: 'reply from the first run' } },
    { ...brochure.step, reply: { ...brochure.step.reply, text: 'reply from the rerun' } },
  ]);
  if (loseFinishJob) env.stack.qstash.failNextPublishes(1);
  const sent = await postWebhook(env, world, contact, brochure.text);
  // The job is published after the answer (waitUntil): with the job to be lost, the Worker is
  // killed only once the broker has refused it — sooner, the refusal would fall on another publish.
  if (loseFinishJob) await refused(env, 15_000);
  else await jobAtBroker(env, sent.answer.turnId ?? '', 15_000);
  env.stack.qstash.failNextPublishes(0);
  await env.stack.restartWorker();
  const notes: string[] = [];
  if (loseFinishJob && sent.answer.turnId) {
    // Nothing but the cron finishes it now: make its open claim due and run the cron.
    await env.session.multi((m) => {
      m.zadd(
        tenantKeys(world.tenantId).openClaims,
        { xx: true },
        { score: Date.now() - 1000, member: sent.answer.turnId! },
      );
      m.zadd(DUE_INDEX_KEY, { lt: true }, { score: Date.now() - 1000, member: world.tenantId });
    });
    notes.push(`cron: ${await runCron(env)}`);
  }
  const outcome = await observeRow(env, world, [sent], 90_000);
  notes.push(
    `model calls: ${env.model.calls({ safetyIdentifier: safetyIdentifierFor(world.tenantId, contact) }).length}`,
  );
  return { messages: [sent], outcome, notes };
}

/** Waits until every publish the broker was told to refuse has come and been refused. */
async function refused(env: FaultEnvironment, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (env.stack.qstash.publishFailuresLeft() > 0) {
    if (Date.now() > deadline) throw new Error(`no publish came to be refused within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Waits until the turn's finish-turn job is with the broker (published after the answer, in waitUntil). */
async function jobAtBroker(env: FaultEnvironment, turnId: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const atBroker = () =>
    env.stack.qstash
      .messages()
      .some((m) => m.url.endsWith(FINISH_TURN_PATH) && Boolean(turnId && m.body?.includes(turnId)));
  while (!atBroker()) {
    if (Date.now() > deadline)
      throw new Error(`the finish-turn job of ${turnId || 'the turn'} did not reach the broker within ${timeoutMs} ms`);
    await sleep(50);
  }
}

const workerKilled: Row = {
  name: 'Worker killed mid-turn',
  exclusive: true,
  expected: { performed: 2, unknown: 0, dead: 0, says: 'finish-turn job reruns it: reply + flow once' },
  run: (env) => killedMidTurn(env, 'killed', false),
};

const workerKilledJobLost: Row = {
  name: 'Worker killed mid-turn, finish-turn job lost',
  exclusive: true,
  expected: { performed: 2, unknown: 0, dead: 0, says: 'the cron finds the open claim: reply + flow once' },
  run: (env) => killedMidTurn(env, 'killed-job-lost', true),
};

export const outageRows: Row[] = [
  redisDown,
  redisDownCold,
  redisDownDuringDelivery,
  qstashPublishFailing,
  deliveriesPaused,
  workerKilled,
  workerKilledJobLost,
];
