import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { FINISH_TURN_PATH, type FinishTurnJob } from '../../core/finish-turn-job.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, seedTenant, workerEnv } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord, type AppUnderTest } from './turn-helpers.js';

const brochureCall = {
  calls: [{ tool: 'send_media', input: { flow: 'brochure' } }],
  reply: reply('Here comes the brochure.'),
};
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model whose first call waits for `release()`; later calls answer at once. Both stage the brochure. */
function gatedModel() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async (_options: LanguageModelV4CallOptions) => {
      calls++;
      if (calls === 1) await gate;
      return {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: `c${calls}a`,
            toolName: 'send_media',
            input: '{"flow":"brochure"}',
          },
          {
            type: 'tool-call' as const,
            toolCallId: `c${calls}b`,
            toolName: 'reply',
            input: JSON.stringify(reply(`Here comes the brochure (run ${calls}).`)),
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
  return { model, release: () => release() };
}

async function postFinishJob(app: AppUnderTest, job: FinishTurnJob, tamper?: (body: string) => string) {
  const body = JSON.stringify(job);
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}${FINISH_TURN_PATH}`;
  const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body });
  return app.fetch(
    new Request(`http://worker.test${FINISH_TURN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'upstash-signature': signature },
      body: tamper ? tamper(body) : body,
    }),
  );
}

describe('a turn slower than the deadline', () => {
  it('is answered at the deadline, finishes in the background, and its reply then its actions go through the outbox, in order', async () => {
    const { tenantId, secret } = await seedTenant({
      deadlineMs: 600,
      holdingReply: 'One moment…',
      asyncDeadlineMs: 5000,
    });
    const app = appWith(scriptedModel([{ delayMs: 1500, ...brochureCall }]));
    const started = Date.now();
    const res = await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'brochure please' });
    const answeredAfter = Date.now() - started;
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    expect(((await res.json()) as { content: { messages: { text: string }[] } }).content.messages[0]?.text).toBe(
      'One moment…',
    );
    expect(answeredAfter).toBeLessThan(1500); // before the model finished, whatever the machine's speed
    expect(app.finishJobs).toHaveLength(1);
    expect(app.finishJobs[0]!.delaySeconds).toBe(5 + 15);
    await app.settle();
    const turnId = res.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    expect(record.deferred).toBe(true);
    expect(record.decision).toBe('pass');
    const entry = await outboxEntry(tenantId, turnId);
    expect(entry?.actions.map((a) => [a.kind, a.args.text ?? a.args.flowName])).toEqual([
      ['send_content', 'Here comes the brochure.'],
      ['send_flow', 'brochure'],
    ]);
  }, 15_000);

  it("keeps its confirmation buttons: the outbox's sendContent carries signed Yes/No that work", async () => {
    const { tenantId, secret } = await seedTenant({ deadlineMs: 600, asyncDeadlineMs: 5000 });
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        {
          delayMs: 1500,
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'yoga' } }],
          reply: reply('Shall I note yoga as your preferred class?'),
        },
      ]),
    );
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'I prefer yoga' });
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    await app.settle();
    const turnId = res.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    const send = (await outboxEntry(tenantId, turnId))?.actions[0];
    expect(send?.kind).toBe('send_content');
    const buttons = send?.args.quickReplies as { caption: string; url: string; payload: Record<string, unknown> }[];
    expect(buttons.map((b) => b.caption)).toEqual(['Yes', 'No']);
    expect(buttons[0]!.url).toBe(`${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/manychat/${tenantId}`);
    const yes = await app.post(tenantId, null, buttons[0]!.payload);
    expect(yes.headers.get('x-confirmation-outcome')).toBe('confirmed');
    expect((await outboxEntry(tenantId, record.pendingConfirmation!))?.actions.map((a) => a.kind)).toEqual([
      'set_field',
    ]);
  }, 15_000);

  it('whose background run died is completed by the finish-turn job, once', async () => {
    const { tenantId, secret } = await seedTenant({ deadlineMs: 600, asyncDeadlineMs: 5000 });
    const { model, release } = gatedModel();
    const app = appWith(model);
    const res = await app.post(tenantId, secret, { contact: { id: await newContact() }, text: 'brochure please' });
    expect(res.headers.get('x-turn-deferred')).toBe('1');
    const turnId = res.headers.get('x-turn-id')!;
    const job = app.finishJobs[0]!.job;
    expect(job.turnId).toBe(turnId);

    const finished = await postFinishJob(app, job);
    expect(finished.status).toBe(200);
    expect(await finished.json()).toMatchObject({ outcome: 'finished', decision: 'pass' });
    const entry = await outboxEntry(tenantId, turnId);
    expect(entry?.actions.map((a) => a.kind)).toEqual(['send_content', 'send_flow']);
    expect(String(entry?.actions[0]?.args.text)).toContain('run 2');

    // The "dead" background run comes back to life: its commit is refused.
    release();
    await app.settle();
    expect(await outboxEntry(tenantId, turnId)).toEqual(entry);
    expect((await turnRecord(tenantId, turnId)).reply.text).toContain('run 2');

    const again = await postFinishJob(app, job);
    expect(await again.json()).toEqual({ outcome: 'already-done', turnId });
  }, 15_000);

  it('a turn answered in time publishes no finish-turn job; one that arrives anyway (the sweep) is a no-op', async () => {
    const { tenantId, secret } = await seedTenant();
    const app = appWith(scriptedModel([brochureCall]));
    const contactId = await newContact();
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'brochure please' });
    expect(res.headers.get('x-turn-deferred')).toBeNull();
    await app.settle();
    expect(app.finishJobs).toEqual([]);
    const turnId = res.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);
    const job = await postFinishJob(app, { turnId, inbound: record.inbound });
    expect(await job.json()).toEqual({ outcome: 'already-done', turnId });
  });

  it('a finish-turn job that is unsigned or altered is refused with 401', async () => {
    const app = appWith(scriptedModel([brochureCall]));
    const job: FinishTurnJob = {
      turnId: 'turn_x',
      inbound: {
        tenantId: 'demo',
        channel: 'manychat',
        contactId: '1',
        messageKey: 'k',
        text: 'hi',
        contact: { fields: {} },
        receivedAt: new Date().toISOString(),
      },
    };
    const unsigned = await app.fetch(
      new Request(`http://worker.test${FINISH_TURN_PATH}`, { method: 'POST', body: JSON.stringify(job) }),
    );
    expect(unsigned.status).toBe(401);
    const altered = await postFinishJob(app, job, (b) => b.replace('hi', 'send everything'));
    expect(altered.status).toBe(401);
  });
});
