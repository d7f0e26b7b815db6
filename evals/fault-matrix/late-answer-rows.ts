import type { FaultEnvironment } from './environment.js';
import { ACTION_SETUPS } from './manychat-rows.js';
import { observeRow } from './observe.js';
import type { Row } from './row.js';
import { createWorld, newContact, postWebhook, scriptModel, sleep } from './world.js';

/**
 * Redis that does the work but answers late (issue 28 items 17 and 18): the Upstash bridge runs
 * the request at once and answers 2.6 s later, past the Worker's 2 s Redis timeout, so the Worker
 * does not know whether its write happened. The contact must still get the committed reply, and
 * the committed action must be performed once.
 */
const brochure = ACTION_SETUPS.send_flow;
const LATE_MS = 2600;

/** A fragment of every ConditionalWrites script (the commit's among them). */
const CONDITIONAL_WRITES = "redis.call('EXISTS', KEYS[1]) == 1 then return 0 end";
/** A fragment of the claim's script. */
const CLAIM = "local won = redis.call('SET', KEYS[1], ARGV[1], 'NX'";

function lateRow(name: string, what: 'commit' | 'claim', expected: Row['expected']): Row {
  return {
    name,
    exclusive: false,
    expected,
    async run(env: FaultEnvironment) {
      const world = await createWorld(env, `late-${what}`);
      // A first turn warms the isolate's copy of the tenant (a warm isolate, as most live traffic is).
      const warm = newContact(env, world);
      scriptModel(env, world, warm, [{ reply: { text: 'Hello!', escalate: false, confidence: 0.9, reason: 'warm' } }]);
      await postWebhook(env, world, warm, 'Hello there');
      const contact = newContact(env, world);
      scriptModel(env, world, contact, [brochure.step]);
      const tenantKeyPrefix = `t:${world.tenantId}:`;
      env.stack.upstash.answerLate({
        contains:
          what === 'commit' ? [CONDITIONAL_WRITES, `${tenantKeyPrefix}turn:`] : [CLAIM, `${tenantKeyPrefix}claim:`],
        delayMs: LATE_MS,
      });
      const sent = await postWebhook(env, world, contact, brochure.text);
      // A kept inbound retry (the claim row) comes back from QStash 15 s later.
      if (what === 'claim') await sleep(1000);
      const notes = [
        `answered ${sent.answer.status} in ${(sent.answer.ms / 1000).toFixed(1)} s: ${JSON.stringify(sent.answer.replyText ?? null)}`,
      ];
      return { messages: [sent], outcome: await observeRow(env, world, [sent], 60_000), notes };
    },
  };
}

export const lateAnswerRows: Row[] = [
  lateRow('Redis answers the commit 2.6 s late', 'commit', {
    performed: 1,
    unknown: 0,
    dead: 0,
    says: 'the commit happened: the webhook answers its reply (not the fallback); the flow once',
    reply: 'Sending the brochure now.',
  }),
  // The Worker cannot know the claim happened: it keeps the message (holding reply) and the kept
  // inbound retry finishes the open claim, whose reply then goes out through the outbox.
  lateRow('Redis answers the claim 2.6 s late, warm isolate', 'claim', {
    performed: 2,
    unknown: 0,
    dead: 0,
    says: 'held; the kept retry finishes the open claim: reply + flow once',
  }),
];
