import { describe, expect, inject, it } from 'vitest';
import { setDashboardUser } from '../../src/dashboard/auth/users.js';
import { createApp } from '../../src/app.js';
import { DashboardClient, formFields } from '../support/dashboard-client.js';
import { session, uniqueId, workerEnv } from '../support/workers-env.js';
import {
  deliverMessenger,
  echoModel,
  newPsid,
  postMessenger,
  seedMessengerTenant,
  sentTo,
  textItem,
  turnIds,
  webhookBody,
} from './messenger-helpers.js';
import { appWith, turnRecord } from './turn-helpers.js';

/**
 * Replaying recorded Messenger turns reaches no channel by any path: while the dashboard's replay
 * runs (the same config, a config that turns passes into vetoes, and a new persona answered by
 * the configured model), every outbound request of the Worker is watched — the only host it may
 * reach is Redis (the Upstash REST bridge). The Send API and ManyChat sandboxes' call lists and
 * the QStash broker's messages are the same after as before.
 */
async function everything(tenantId: string, markers: string[]): Promise<{ sandbox: unknown[]; qstash: string[] }> {
  const calls = (await (await fetch(`${inject('manychatUrl')}/__sandbox/calls`)).json()) as { calls: unknown[] };
  const broker = (await (await fetch(`${inject('qstashUrl')}/__dev/messages`)).json()) as {
    messages: { messageId: string }[];
  };
  // This tenant's only (its page, its contacts, its id): other files run beside this one and
  // call the same stand-ins while it replays.
  const ours = (x: unknown) => {
    const text = JSON.stringify(x);
    return [tenantId, ...markers].some((m) => text.includes(m));
  };
  return {
    sandbox: calls.calls.filter(ours),
    qstash: broker.messages
      .filter(ours)
      .map((m) => m.messageId)
      .sort(),
  };
}

/** Runs `work` with every fetch of this isolate recorded (the app under test runs in it). */
async function watchingFetch<T>(work: () => Promise<T>): Promise<{ result: T; urls: string[] }> {
  const original = globalThis.fetch;
  const urls: string[] = [];
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return original(input, init);
  }) as typeof fetch;
  try {
    return { result: await work(), urls };
  } finally {
    globalThis.fetch = original;
  }
}

describe('a replay of Messenger turns makes no outbound call', () => {
  it('no Send API, ManyChat or QStash request while replaying; their call lists are unchanged', async () => {
    const t = await seedMessengerTenant();
    const password = `pw-${uniqueId('p')}`;
    await setDashboardUser(session(), t.tenantId, 'owner', password);
    const app = appWith(echoModel());
    const psids = [await newPsid(t), await newPsid(t), await newPsid(t)];
    for (const [i, psid] of psids.entries())
      await postMessenger(
        app,
        t,
        webhookBody(t, [
          textItem(t, psid, `m_${psid}_${i}`, i === 0 ? 'the brochure please' : `hello ${i}`, Date.now()),
        ]),
      );
    await app.settle();
    const ids = await turnIds(t.tenantId);
    expect(ids).toHaveLength(3);
    for (const id of ids) {
      expect((await turnRecord(t.tenantId, id)).inbound.channel).toBe('messenger');
      expect((await deliverMessenger(t, id)).outcome).toBe('done');
    }
    // The recording itself did send: the lists below are not empty by accident.
    expect((await sentTo(psids[0]!)).length).toBeGreaterThan(0);
    expect((await everything(t.tenantId, [t.pageId, ...psids])).sandbox.length).toBeGreaterThan(0);

    const client = new DashboardClient(
      createApp((s) => ({ ...s, model: () => ({ model: echoModel(), modelId: 'echo-model', offline: false }) })),
    );
    expect((await client.login(t.tenantId, 'owner', password)).status).toBe(303);
    const { html } = await client.page('/dashboard/replay');
    const fields = formFields(html, '/dashboard/replay');
    const config = JSON.parse(fields.config!) as {
      persona: string;
      guardrails: { content: { denyPhrases: string[] } };
    };
    const vetoing = {
      ...config,
      guardrails: { ...config.guardrails, content: { ...config.guardrails.content, denyPhrases: ['You said'] } },
    };
    const persona = { ...config, persona: `${config.persona} Be terse.` };

    const mine = [t.pageId, ...psids];
    const before = await everything(t.tenantId, mine);
    const { result: pages, urls } = await watchingFetch(async () => [
      await (await client.post('/dashboard/replay', { ...fields })).text(),
      await (await client.post('/dashboard/replay', { ...fields, config: JSON.stringify(vetoing) })).text(),
      await (
        await client.post('/dashboard/replay', { ...fields, config: JSON.stringify(persona), model: 'yes' })
      ).text(),
    ]);
    // The runs did what they say: unchanged; three passes turned vetoes; three calls answered by the model.
    expect(pages[0]).toMatch(/<dt>Turns replayed<\/dt><dd>3<\/dd><dt>Changed<\/dt><dd>0<\/dd>/);
    expect(pages[1]).toContain('<dt>Decision pass→veto</dt><dd>3</dd>');
    expect(pages[2]).toContain('(0 answered from the recording, 3 by the model)');

    // The watch saw the app's Redis requests, and nothing else.
    const redis = workerEnv.UPSTASH_REDIS_REST_URL!;
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((u) => !u.startsWith(redis))).toEqual([]);
    for (const other of [workerEnv.MESSENGER_GRAPH_URL!, workerEnv.MANYCHAT_API_URL!, workerEnv.QSTASH_URL!])
      expect(urls.some((u) => u.startsWith(other))).toBe(false);
    expect(await everything(t.tenantId, mine)).toEqual(before);
  });
});
