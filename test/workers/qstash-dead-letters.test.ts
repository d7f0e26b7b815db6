import { Client } from '@upstash/qstash';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { seedTenant, workerEnv } from '../support/workers-env.js';
import { qstashTurnJobs } from '../../outbox/finish-turn-publisher.js';
import { qstashPublisher, tenantLabel } from '../../outbox/publisher.js';
import { listQStashDeadLetters } from '../../outbox/qstash-dead-letters.js';

async function api(tenantId: string, secret: string, method: string, path: string) {
  return createApp().fetch(
    new Request(`http://worker.test/v1/outbox/dead-letters/${tenantId}${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}` },
    }),
    workerEnv,
  );
}

type Listed = { qstash: { dlqId: string; kind: string; turnId: string; responseStatus: number | null }[] };

async function waitForDeadLetter(tenantId: string, secret: string, turnId: string): Promise<Listed['qstash'][number]> {
  for (let i = 0; i < 50; i++) {
    const listed = (await (await api(tenantId, secret, 'GET', '')).json()) as Listed;
    const hit = listed.qstash.find((d) => d.turnId === turnId);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the message never reached the QStash DLQ');
}

describe("QStash's dead-letter queue, per tenant", () => {
  it('lists a delivery QStash gave up on for its tenant only, and retries it on request', async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const client = new Client({ baseUrl: workerEnv.QSTASH_URL!, token: workerEnv.QSTASH_TOKEN! });
    const turnId = `turn_dlq${Date.now()}`;
    // Nothing listens on port 9: the one attempt fails and the message goes to the DLQ. Labelled
    // with its tenant, as every message the product publishes is.
    await client.publishJSON({
      url: 'http://127.0.0.1:9/v1/outbox/deliver',
      body: { tenantId: a.tenantId, turnId },
      retries: 0,
      label: tenantLabel(a.tenantId),
    });
    const dead = await waitForDeadLetter(a.tenantId, a.adminSecret, turnId);
    expect(dead.kind).toBe('delivery');

    const other = (await (await api(b.tenantId, b.adminSecret, 'GET', '')).json()) as Listed;
    expect(other.qstash.some((d) => d.turnId === turnId)).toBe(false);
    const stolen = await api(b.tenantId, b.adminSecret, 'POST', `/qstash/${dead.dlqId}/retry`);
    expect(stolen.status).toBe(404);

    const retried = await api(a.tenantId, a.adminSecret, 'POST', `/qstash/${dead.dlqId}/retry`);
    expect(retried.status).toBe(200);
    const after = (await (await api(a.tenantId, a.adminSecret, 'GET', '')).json()) as Listed;
    expect(after.qstash.some((d) => d.dlqId === dead.dlqId)).toBe(false);
  });
});

describe('QStash labels per tenant', () => {
  it('every delivery and finish-turn job the product publishes carries its tenant label', async () => {
    const a = await seedTenant();
    const client = new Client({ baseUrl: workerEnv.QSTASH_URL!, token: workerEnv.QSTASH_TOKEN! });
    const turnId = `turn_label${Date.now()}`;
    // Delayed an hour: published and labelled, never delivered during the test.
    await qstashPublisher({
      qstashUrl: workerEnv.QSTASH_URL!,
      qstashToken: workerEnv.QSTASH_TOKEN!,
      publicUrl: 'http://127.0.0.1:9',
    }).publish({ tenantId: a.tenantId, turnId }, { delaySeconds: 3600 });
    await qstashTurnJobs({
      qstashUrl: workerEnv.QSTASH_URL!,
      qstashToken: workerEnv.QSTASH_TOKEN!,
      publicUrl: 'http://127.0.0.1:9',
    }).publishFinishTurn(
      {
        turnId,
        inbound: {
          tenantId: a.tenantId,
          channel: 'manychat',
          contactId: '1',
          messageKey: 'k',
          text: 'hi',
          contact: { fields: {} },
          receivedAt: new Date().toISOString(),
        },
      },
      3600,
    );
    const logs = (await client.logs({ filter: { label: tenantLabel(a.tenantId) } })).logs;
    const urls = new Set(logs.filter((l) => l.state === 'CREATED').map((l) => new URL(l.url).pathname));
    expect(urls).toEqual(new Set(['/v1/outbox/deliver', '/v1/turns/finish']));
    const cancelled = await client.messages.cancel({ filter: { label: tenantLabel(a.tenantId) } });
    expect(cancelled.cancelled).toBe(2);
  });

  it("a tenant's DLQ view is narrowed by its label, and the body must still name the tenant", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const client = new Client({ baseUrl: workerEnv.QSTASH_URL!, token: workerEnv.QSTASH_TOKEN! });
    const mine = `turn_lbl_a${Date.now()}`;
    const forged = `turn_lbl_b${Date.now()}`;
    await client.publishJSON({
      url: 'http://127.0.0.1:9/v1/outbox/deliver',
      body: { tenantId: a.tenantId, turnId: mine },
      retries: 0,
      label: tenantLabel(a.tenantId),
    });
    // Labelled for A but naming B: never listed for A (the body guard), nor for B (not its label).
    await client.publishJSON({
      url: 'http://127.0.0.1:9/v1/outbox/deliver',
      body: { tenantId: b.tenantId, turnId: forged },
      retries: 0,
      label: tenantLabel(a.tenantId),
    });
    const dead = await waitForDeadLetter(a.tenantId, a.adminSecret, mine);
    expect(dead.kind).toBe('delivery');
    await new Promise((r) => setTimeout(r, 300));
    const listedA = (await (await api(a.tenantId, a.adminSecret, 'GET', '')).json()) as Listed;
    const listedB = (await (await api(b.tenantId, b.adminSecret, 'GET', '')).json()) as Listed;
    expect(listedA.qstash.map((d) => d.turnId)).not.toContain(forged);
    expect(listedB.qstash.map((d) => d.turnId)).not.toContain(forged);
    expect(listedA.qstash.filter((d) => d.turnId === mine)).toHaveLength(1);
  });

  it("a tenant's DLQ view is one labelled QStash request (no second, unfiltered scan of the account's DLQ)", async () => {
    const a = await seedTenant();
    const client = new Client({ baseUrl: workerEnv.QSTASH_URL!, token: workerEnv.QSTASH_TOKEN! });
    const mine = `turn_one_scan${Date.now()}`;
    await client.publishJSON({
      url: 'http://127.0.0.1:9/v1/outbox/deliver',
      body: { tenantId: a.tenantId, turnId: mine },
      retries: 0,
      label: tenantLabel(a.tenantId),
    });
    await waitForDeadLetter(a.tenantId, a.adminSecret, mine);
    const asked: URL[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname.startsWith('/v2/dlq')) asked.push(url);
      return realFetch(input, init);
    };
    try {
      const listed = await listQStashDeadLetters(client, a.tenantId);
      expect(listed.map((d) => d.turnId)).toEqual([mine]);
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(asked).toHaveLength(1);
    expect(asked[0]!.searchParams.get('label')).toBe(tenantLabel(a.tenantId));
  });
});

describe('inbound retries QStash gave up on (a Redis outage longer than the schedule)', () => {
  type ListedInbound = { qstash: { dlqId: string; kind: string; contactId?: string; messageKey?: string }[] };
  const inboundOf = (tenantId: string, messageKey: string) => ({
    tenantId,
    channel: 'manychat' as const,
    contactId: '4242',
    messageKey,
    text: 'send me the brochure',
    contact: { fields: {} },
    receivedAt: new Date().toISOString(),
  });

  async function deadInbound(tenantId: string, secret: string, messageKey: string, labelTenant = tenantId) {
    const client = new Client({ baseUrl: workerEnv.QSTASH_URL!, token: workerEnv.QSTASH_TOKEN! });
    await client.publishJSON({
      url: 'http://127.0.0.1:9/v1/inbound/retry',
      body: { inbound: inboundOf(tenantId, messageKey) },
      retries: 0,
      label: tenantLabel(labelTenant),
    });
    for (let i = 0; i < 50; i++) {
      const listed = (await (await api(tenantId, secret, 'GET', '')).json()) as ListedInbound;
      const hit = listed.qstash.find((d) => d.messageKey === messageKey);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the inbound retry was never listed');
  }

  it('is listed for its tenant by contact and message key, never for another, and re-driven only by its own tenant', async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const key = `k:dlq-inbound-${Date.now()}`;
    const dead = await deadInbound(a.tenantId, a.adminSecret, key);
    expect(dead).toMatchObject({ kind: 'inbound', contactId: '4242', messageKey: key });
    const other = (await (await api(b.tenantId, b.adminSecret, 'GET', '')).json()) as ListedInbound;
    expect(other.qstash.some((d) => d.messageKey === key)).toBe(false);
    expect((await api(b.tenantId, b.adminSecret, 'POST', `/qstash/${dead.dlqId}/retry`)).status).toBe(404);
    expect((await api(a.tenantId, a.adminSecret, 'POST', `/qstash/${dead.dlqId}/retry`)).status).toBe(200);
  });

  it("a tenant re-drives all its kept messages at once; another tenant's (even labelled as this one) are left alone", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const keys = [`k:bulk1-${Date.now()}`, `k:bulk2-${Date.now()}`];
    const deadA = await Promise.all(keys.map((k) => deadInbound(a.tenantId, a.adminSecret, k)));
    // Names B in its body but carries A's label: listed for neither, re-driven by neither.
    const client = new Client({ baseUrl: workerEnv.QSTASH_URL!, token: workerEnv.QSTASH_TOKEN! });
    const forgedKey = `k:forged-${Date.now()}`;
    await client.publishJSON({
      url: 'http://127.0.0.1:9/v1/inbound/retry',
      body: { inbound: inboundOf(b.tenantId, forgedKey) },
      retries: 0,
      label: tenantLabel(a.tenantId),
    });
    await new Promise((r) => setTimeout(r, 300));
    const res = await api(a.tenantId, a.adminSecret, 'POST', '/qstash/inbound/retry');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { retried: { dlqId: string }[]; failed: unknown[] };
    expect(body.retried.map((r) => r.dlqId).sort()).toEqual(deadA.map((d) => d.dlqId).sort());
    expect(body.failed).toEqual([]);
  });
});
