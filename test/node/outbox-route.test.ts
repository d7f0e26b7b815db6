import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { QSTASH_DEV_CREDENTIALS } from '../../dev/qstash-broker.js';
import type { ManyChatSandbox } from '../../dev/manychat-sandbox.js';
import { createApp } from '../../src/app.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { outboxKeys } from '../../core/storage/outbox-store.js';

const leaseKey = (tenantId: string, turnId: string) => outboxKeys(tenantId).lease(turnId);
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { buildOutboxEntry } from '../../core/outbox-entry.js';
import {
  action,
  callsFor,
  connect,
  dropTenant,
  entryFor,
  FLOW_BROCHURE,
  newSubscriber,
  performed,
  seedTenant,
  startTestSandbox,
  uniqueId,
  ADMIN_SECRET,
  writeEntry,
} from './outbox-fixtures.js';

/**
 * The HTTP surface of the outbox through the Worker's Hono app (run in Node here; the e2e test
 * runs the same code in workerd): signature checks, status codes QStash acts on, the dead-letter API.
 */
const PUBLIC_URL = 'https://agent.example.test';
const DELIVER_URL = `${PUBLIC_URL}/v1/outbox/deliver`;

let sandbox: ManyChatSandbox;
let session: RedisSession;
let env: Record<string, string>;
const published: { tenantId: string; turnId: string }[] = [];
const publisher: OutboxPublisher = { publish: async (m) => void published.push(m) };
const app = createApp((services) => ({ ...services, publisher: () => publisher }));
const tenantId = uniqueId('obr');

beforeAll(async () => {
  sandbox = await startTestSandbox();
  session = connect();
  env = { ...inject('workerEnv'), PUBLIC_URL, MANYCHAT_API_URL: sandbox.url };
  await seedTenant(session, tenantId);
});

afterAll(async () => {
  await dropTenant(session, tenantId);
  await sandbox.close();
});

async function newEntry(kinds: ('send_flow' | 'add_tag')[] = ['send_flow', 'add_tag']) {
  const sub = newSubscriber(sandbox);
  const turnId = uniqueId('turn_');
  const actions = kinds.map((kind, i) =>
    action(
      turnId,
      i + 1,
      kind === 'send_flow'
        ? { kind, args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } }
        : { kind, args: { tag: 'interested' } },
    ),
  );
  await writeEntry(session, entryFor(tenantId, turnId, sub, actions));
  return { sub, turnId, body: JSON.stringify({ tenantId, turnId }) };
}

function post(body: string, headers: Record<string, string> = {}) {
  return app.request(
    '/v1/outbox/deliver',
    { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body },
    env,
  );
}

async function signed(body: string, overrides: Partial<Parameters<typeof signQStashDelivery>[0]> = {}) {
  return post(body, {
    'Upstash-Signature': await signQStashDelivery({
      key: QSTASH_DEV_CREDENTIALS.currentSigningKey,
      url: DELIVER_URL,
      body,
      ...overrides,
    }),
  });
}

async function stillPending(turnId: string) {
  return (await session.one((r) => r.zscore(tenantKeys(tenantId).outboxPending, turnId))) !== null;
}

describe('POST /v1/outbox/deliver', () => {
  it('a delivery signed with the current key performs the actions once and answers 200 with a summary', async () => {
    const { sub, turnId, body } = await newEntry();
    const res = await signed(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      tenantId,
      turnId,
      outcome: 'done',
      entryState: 'done',
      actions: [{ state: 'done' }, { state: 'done' }],
    });
    expect(performed(callsFor(sandbox, sub))).toEqual(['sendFlow', 'addTagByName']);
    // A duplicate delivery (QStash is at least once) performs nothing more.
    expect((await signed(body)).status).toBe(200);
    expect(callsFor(sandbox, sub)).toHaveLength(2);
  });

  it('a delivery signed with the next key (key rotation) is accepted', async () => {
    const { sub, body } = await newEntry(['add_tag']);
    expect((await signed(body, { key: QSTASH_DEV_CREDENTIALS.nextSigningKey })).status).toBe(200);
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
  });

  it.each([
    ['unsigned', async (body: string) => post(body)],
    [
      'signed with a key that is not ours',
      async (body: string) => signed(body, { key: 'sig_forged000000000000000000000' }),
    ],
    ['expired', async (body: string) => signed(body, { issuedAt: Math.floor(Date.now() / 1000) - 900 })],
    [
      'signed for another body (body altered)',
      async (body: string) => signed(body, { hashOf: body.replace('turn_', 'turn_x') }),
    ],
    ['signed for another URL', async (body: string) => signed(body, { url: 'https://evil.example/v1/outbox/deliver' })],
    ['issued by someone other than Upstash', async (body: string) => signed(body, { issuer: 'NotUpstash' })],
    ['a malformed token', async (body: string) => post(body, { 'Upstash-Signature': 'not.a.jwt' })],
  ])('%s → 401 and nothing performed', async (_name, send) => {
    const { sub, turnId, body } = await newEntry();
    const res = await send(body);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: expect.stringMatching(/Upstash-Signature/) });
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    expect(await stillPending(turnId)).toBe(true);
  });

  it('a body altered after signing is refused even when it names a real entry', async () => {
    const a = await newEntry(['add_tag']);
    const b = await newEntry(['add_tag']);
    const signature = await signQStashDelivery({
      key: QSTASH_DEV_CREDENTIALS.currentSigningKey,
      url: DELIVER_URL,
      body: a.body,
    });
    const res = await post(b.body, { 'Upstash-Signature': signature });
    expect(res.status).toBe(401);
    expect(callsFor(sandbox, a.sub)).toHaveLength(0);
    expect(callsFor(sandbox, b.sub)).toHaveLength(0);
  });

  it('a signed body that is not a delivery message is 400', async () => {
    expect((await signed('{not json')).status).toBe(400);
    const res = await signed(JSON.stringify({ tenantId }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid delivery body',
      details: [expect.stringMatching(/turnId/)],
    });
  });

  it('an unknown tenant or entry is 489 with Upstash-NonRetryable-Error (QStash stops retrying)', async () => {
    const unknownTenant = await signed(JSON.stringify({ tenantId: uniqueId('nobody'), turnId: 'turn_x' }));
    expect(unknownTenant.status).toBe(489);
    expect(unknownTenant.headers.get('Upstash-NonRetryable-Error')).toBe('true');
    const unknownTurn = await signed(JSON.stringify({ tenantId, turnId: uniqueId('turn_') }));
    expect(unknownTurn.status).toBe(489);
    expect(unknownTurn.headers.get('Upstash-NonRetryable-Error')).toBe('true');
  });

  it('ManyChat 429 → 503 with its Retry-After; 503 without one → 503 without (QStash backs off itself)', async () => {
    const { sub, body } = await newEntry(['send_flow']);
    sandbox.injectFault({ path: '/sendFlow', count: 1, kind: '429', retryAfterSeconds: 5 });
    sandbox.injectFault({ path: '/sendFlow', count: 1, kind: '503' });
    const first = await signed(body);
    expect(first.status).toBe(503);
    expect(first.headers.get('Retry-After')).toBe('5');
    const second = await signed(body);
    expect(second.status).toBe(503);
    expect(second.headers.get('Retry-After')).toBeNull();
    expect((await signed(body)).status).toBe(200);
    expect(performed(callsFor(sandbox, sub))).toEqual(['sendFlow']);
  });

  it('while another delivery holds the entry: 409 with Retry-After = what is left of its lease, nothing performed', async () => {
    const { sub, turnId, body } = await newEntry(['send_flow']);
    await session.one((r) => r.set(leaseKey(tenantId, turnId), 'someone-else', { px: 4500 }));
    const res = await signed(body);
    expect(res.status).toBe(409);
    expect(res.headers.get('Retry-After')).toBe('5');
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    // Almost expired: never less than 1 s.
    await session.one((r) => r.set(leaseKey(tenantId, turnId), 'someone-else', { px: 900 }));
    expect((await signed(body)).headers.get('Retry-After')).toBe('1');
  });

  it('a body over 64 KB is 413 before anything else', async () => {
    expect((await post('x'.repeat(64 * 1024 + 1))).status).toBe(413);
  });
});

describe('dead-letter API', () => {
  const headers = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json' };

  it('needs the tenant secret', async () => {
    expect((await app.request(`/v1/outbox/dead-letters/${tenantId}`, {}, env)).status).toBe(401);
    expect(
      (await app.request(`/v1/outbox/dead-letters/${tenantId}`, { headers: { authorization: 'Bearer wrong' } }, env))
        .status,
    ).toBe(401);
    // An unknown tenant looks like a wrong secret: nothing is told before authentication.
    expect((await app.request(`/v1/outbox/dead-letters/${uniqueId('nobody')}`, { headers }, env)).status).toBe(401);
  });

  it('lists an unknown send and re-drives it only with sendAnyway', async () => {
    const { sub, turnId, body } = await newEntry(['send_flow']);
    const actionId = `${turnId}.a1`;
    await session.one((r) =>
      r.hset(tenantKeys(tenantId).ledger(turnId), {
        [actionId]: JSON.stringify({ state: 'claimed', at: new Date().toISOString(), attempts: 1 }),
      }),
    );
    expect((await signed(body)).status).toBe(200);
    expect(callsFor(sandbox, sub)).toHaveLength(0);

    const list = await app.request(`/v1/outbox/dead-letters/${tenantId}`, { headers }, env);
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { deadLetters: { actionId: string; state: string; currentState: string }[] };
    expect(listed.deadLetters.find((l) => l.actionId === actionId)).toMatchObject({
      state: 'unknown',
      currentState: 'unknown',
    });

    const redrive = (payload: object) =>
      app.request(
        `/v1/outbox/dead-letters/${tenantId}/redrive`,
        { method: 'POST', headers, body: JSON.stringify(payload) },
        env,
      );
    const refused = await redrive({ turnId, actionId });
    expect(refused.status).toBe(409);
    expect(callsFor(sandbox, sub)).toHaveLength(0);

    const forced = await redrive({ turnId, actionId, sendAnyway: true });
    expect(forced.status).toBe(200);
    expect(await forced.json()).toMatchObject({
      ok: true,
      published: true,
      delivery: { outcome: 'done', actions: [{ state: 'done' }] },
    });
    expect(published).toContainEqual({ tenantId, turnId });
    expect(performed(callsFor(sandbox, sub))).toEqual(['sendFlow']);
    expect((await redrive({ turnId })).status).toBe(400);
  });

  it("a re-drive whose action dies again answers 502 ok: false with ManyChat's words, not ok: true", async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const actionId = `${turnId}.a1`;
    // A tag ManyChat does not have: every attempt is refused with a 4xx, so the action is dead.
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'no_such_tag' } })]),
    );
    expect((await signed(JSON.stringify({ tenantId, turnId }))).status).toBe(200);
    const listed = (await (await app.request(`/v1/outbox/dead-letters/${tenantId}`, { headers }, env)).json()) as {
      deadLetters: { actionId: string; state: string }[];
    };
    expect(listed.deadLetters.find((l) => l.actionId === actionId)?.state).toBe('dead');

    const res = await app.request(
      `/v1/outbox/dead-letters/${tenantId}/redrive`,
      { method: 'POST', headers, body: JSON.stringify({ turnId, actionId }) },
      env,
    );
    expect(res.status).toBe(502);
    const body = (await res.json()) as { ok: boolean; state: string; error: string };
    expect(body.ok).toBe(false);
    expect(body.state).toBe('dead');
    expect(body.error).toContain(actionId);
    expect(body.error).toContain('no_such_tag');
  });

  it('a dead letter of an approved action names the turn that staged it, and its entry for the re-drive', async () => {
    const sub = newSubscriber(sandbox);
    const stagingTurn = uniqueId('turn_');
    const approvalId = `ap_${'0'.repeat(20)}${Date.now().toString(16).padStart(12, '0')}`.slice(0, 35);
    const staged = action(stagingTurn, 1, { kind: 'add_tag', args: { tag: 'no_such_tag' } });
    // What decide-approval commits: the entry is named by the approval row, the action keeps its turn.
    await writeEntry(
      session,
      buildOutboxEntry({
        entryId: approvalId,
        tenantId,
        channel: 'manychat',
        contactId: sub,
        actions: [staged],
        now: new Date(),
        stagedByTurnId: stagingTurn,
      }),
    );
    expect((await signed(JSON.stringify({ tenantId, turnId: approvalId }))).status).toBe(200);
    const listed = (await (await app.request(`/v1/outbox/dead-letters/${tenantId}`, { headers }, env)).json()) as {
      deadLetters: { turnId: string; entryId: string; actionId: string; currentState: string }[];
    };
    expect(listed.deadLetters.find((l) => l.actionId === staged.id)).toMatchObject({
      turnId: stagingTurn,
      entryId: approvalId,
      currentState: 'dead',
    });

    const byTurn = await app.request(
      `/v1/outbox/dead-letters/${tenantId}/redrive`,
      { method: 'POST', headers, body: JSON.stringify({ turnId: stagingTurn, actionId: staged.id }) },
      env,
    );
    expect(byTurn.status).toBe(404);
    expect(((await byTurn.json()) as { error: string }).error).toContain('entryId');
    const byEntry = await app.request(
      `/v1/outbox/dead-letters/${tenantId}/redrive`,
      { method: 'POST', headers, body: JSON.stringify({ entryId: approvalId, actionId: staged.id }) },
      env,
    );
    expect(byEntry.status).toBe(502);
    // The re-drive took the old letter off; the new death put one back: one letter, not two.
    const after = (await (await app.request(`/v1/outbox/dead-letters/${tenantId}`, { headers }, env)).json()) as {
      deadLetters: { actionId: string }[];
    };
    expect(after.deadLetters.filter((l) => l.actionId === staged.id)).toHaveLength(1);
  });
});
