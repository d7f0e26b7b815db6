import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Client, QstashError, Receiver } from '@upstash/qstash';
import { decodeJwt, jwtVerify } from 'jose';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startQStashBroker, type QStashBroker } from './qstash-broker.js';
import { parseDuration, parseRetryAfter } from './qstash-broker/parse.js';
import { compileRetryDelay } from './qstash-broker/retry-delay.js';

const TOKEN = 'test-token-123';
const KEYS = { currentSigningKey: 'sig_currentTestKey111', nextSigningKey: 'sig_nextTestKey222' };
const verifier = new Receiver(KEYS);

interface Delivery {
  path: string;
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  verified: boolean;
  verifyError?: string;
}
interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}
type Script = (nth: number, d: Delivery) => Reply;

/** A destination server that records every delivery and checks its signature with the real Receiver. */
class TestReceiver {
  readonly deliveries: Delivery[] = [];
  private readonly scripts = new Map<string, Script>();
  private server!: Server;
  private base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const path = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        const d: Delivery = {
          path,
          url: this.base + path,
          method: req.method ?? '',
          headers: req.headers,
          body,
          at: Date.now(),
          verified: false,
        };
        try {
          d.verified = await verifier.verify({ signature: String(req.headers['upstash-signature']), body, url: d.url });
        } catch (err) {
          d.verifyError = String(err);
        }
        const nth = this.for(path).length;
        this.deliveries.push(d);
        const reply: Reply = (this.scripts.get(path) ?? (() => ({ status: 200 })))(nth, d);
        const send = () => {
          if (!res.destroyed) res.writeHead(reply.status, reply.headers).end(reply.body ?? 'ok');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string, script?: Script): string {
    if (script) this.scripts.set(path, script);
    return this.base + path;
  }

  script(path: string, script: Script): void {
    this.scripts.set(path, script);
  }

  for(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  waitFor(path: string, count: number, timeoutMs = 5000): Promise<Delivery[]> {
    return until(() => this.for(path).length >= count && this.for(path), timeoutMs, `${count} deliveries to ${path}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

async function until<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** The SDK's Message type omits `state`, which the API (and this broker) reports. */
async function stateOf(messageId: string): Promise<unknown> {
  return ((await client.messages.get(messageId)) as { state?: unknown }).state;
}

/** The SDK's Duration type only allows `<n>s|m|h|d`; tests also send `300ms` and invalid strings on purpose. */
const rawDuration = (text: string) => text as `${bigint}s`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let broker: QStashBroker;
let dest: TestReceiver;
let client: Client;

beforeAll(async () => {
  dest = new TestReceiver();
  await dest.start();
  broker = await startQStashBroker({ token: TOKEN, ...KEYS, port: 0, retryBaseMs: 20, maxRetryDelayMs: 200 });
  client = new Client({ baseUrl: broker.url, token: TOKEN, retry: false });
});

afterAll(async () => {
  await broker?.close();
  await dest?.close();
});

/** Raw HTTP to the broker, for status codes and routes the SDK hides. */
function api(path: string, init: RequestInit = {}, token = TOKEN): Promise<Response> {
  return fetch(broker.url + path, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
}

async function statusOf(p: Promise<unknown>): Promise<{ status?: number; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QstashError);
  return { status: (err as QstashError).status, message: (err as QstashError).message };
}

describe('qstash broker: publish and signed delivery', () => {
  it('delivers publishJSON with the body unchanged, QStash headers and a signature the real Receiver accepts', async () => {
    const url = dest.url('/basic');
    const res = await client.publishJSON({ url, body: { hello: 'world', n: 1 } });
    expect(res.messageId).toMatch(/^msg_/);
    const [d] = await dest.waitFor('/basic', 1);
    expect(d!.verified).toBe(true);
    expect(d!.method).toBe('POST');
    expect(d!.body).toBe('{"hello":"world","n":1}');
    expect(d!.headers['content-type']).toBe('application/json');
    expect(d!.headers['upstash-message-id']).toBe(res.messageId);
    expect(d!.headers['upstash-retried']).toBe('0');
    expect(d!.headers['user-agent']).toBe('Upstash-QStash');
    const claims = decodeJwt(String(d!.headers['upstash-signature']));
    expect(claims).toMatchObject({ iss: 'Upstash', sub: url });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(claims.nbf).toBe(claims.iat);
    expect(String(claims.jti)).toMatch(/^jwt_/);
    await until(async () => (await stateOf(res.messageId)) === 'DELIVERED', 2000, 'DELIVERED state');
  });

  it('signatures fail verification for a tampered body, a different URL or the wrong keys', async () => {
    const url = dest.url('/tamper');
    await client.publishJSON({ url, body: { amount: 10 } });
    const [d] = await dest.waitFor('/tamper', 1);
    const signature = String(d!.headers['upstash-signature']);
    expect(await verifier.verify({ signature, body: d!.body, url })).toBe(true);
    await expect(verifier.verify({ signature, body: '{"amount":1000}', url })).rejects.toThrow(/body hash/);
    await expect(verifier.verify({ signature, body: d!.body, url: url + 'x' })).rejects.toThrow(/subject/);
    const wrong = new Receiver({ currentSigningKey: 'sig_wrong1', nextSigningKey: 'sig_wrong2' });
    await expect(wrong.verify({ signature, body: d!.body, url })).rejects.toThrow(/signature/i);
  });

  it("signWith 'next' signs with the next key, which a Receiver holding both keys accepts", async () => {
    const rotating = await startQStashBroker({ token: TOKEN, ...KEYS, signWith: 'next' });
    try {
      const other = new Client({ baseUrl: rotating.url, token: TOKEN, retry: false });
      await other.publishJSON({ url: dest.url('/next-key'), body: { k: 1 } });
      const [d] = await dest.waitFor('/next-key', 1);
      expect(d!.verified).toBe(true);
      const signature = String(d!.headers['upstash-signature']);
      await expect(jwtVerify(signature, new TextEncoder().encode(KEYS.nextSigningKey))).resolves.toBeTruthy();
      await expect(jwtVerify(signature, new TextEncoder().encode(KEYS.currentSigningKey))).rejects.toThrow();
    } finally {
      await rotating.close();
    }
  });

  it('forwards Upstash-Forward-* headers with the prefix stripped and keeps broker headers out', async () => {
    await client.publishJSON({
      url: dest.url('/fwd'),
      body: {},
      headers: { 'X-Tenant-Id': 't1', Authorization: 'Bearer app-secret' },
    });
    const [d] = await dest.waitFor('/fwd', 1);
    expect(d!.headers['x-tenant-id']).toBe('t1');
    expect(d!.headers.authorization).toBe('Bearer app-secret');
    expect(
      Object.keys(d!.headers).filter((h) => h.startsWith('upstash-forward-') || h.startsWith('upstash-telemetry')),
    ).toEqual([]);
  });

  it('honours Upstash-Method and keeps a non-JSON body and content type', async () => {
    await client.publish({
      url: dest.url('/put'),
      method: 'PUT',
      body: 'plain text ✓',
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
    const [d] = await dest.waitFor('/put', 1);
    expect(d!.method).toBe('PUT');
    expect(d!.body).toBe('plain text ✓');
    expect(d!.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(d!.verified).toBe(true);
  });

  it('publishes a batch', async () => {
    const res = await client.batchJSON([
      { url: dest.url('/batch-a'), body: { i: 1 } },
      { url: dest.url('/batch-b'), body: { i: 2 } },
    ]);
    expect(res).toHaveLength(2);
    const [a] = await dest.waitFor('/batch-a', 1);
    const [b] = await dest.waitFor('/batch-b', 1);
    expect([a!.headers['upstash-message-id'], b!.headers['upstash-message-id']]).toEqual(res.map((r) => r.messageId));
    expect(b!.body).toBe('{"i":2}');
  });
});

describe('qstash broker: scheduling', () => {
  it('holds a delayed message until its delay has passed, while later undelayed messages go first', async () => {
    const start = Date.now();
    const late = await client.publishJSON({ url: dest.url('/order'), body: { which: 'delayed' }, delay: '1s' });
    await client.publishJSON({ url: dest.url('/order'), body: { which: 'now' } });
    expect(await stateOf(late.messageId)).toBe('CREATED');
    const [first, second] = await dest.waitFor('/order', 2);
    expect(JSON.parse(first!.body)).toEqual({ which: 'now' });
    expect(JSON.parse(second!.body)).toEqual({ which: 'delayed' });
    expect(second!.at - start).toBeGreaterThanOrEqual(990);
  });

  it('Upstash-Not-Before wins over Upstash-Delay', async () => {
    const notBefore = Math.floor(Date.now() / 1000) + 1;
    await client.publishJSON({ url: dest.url('/not-before'), body: {}, delay: '1h', notBefore });
    const [d] = await dest.waitFor('/not-before', 1, 3000);
    expect(d!.at).toBeGreaterThanOrEqual(notBefore * 1000 - 10);
  });

  it('cancels a pending message so it is never delivered', async () => {
    const { messageId } = await client.publishJSON({ url: dest.url('/cancel'), body: {}, delay: rawDuration('300ms') });
    expect(await client.messages.cancel(messageId)).toEqual({ cancelled: 1 });
    await sleep(500);
    expect(dest.for('/cancel')).toHaveLength(0);
    expect(await stateOf(messageId)).toBe('CANCELLED');
    expect((await statusOf(client.messages.cancel(messageId))).status).toBe(404);
  });
});

describe('qstash broker: deduplication', () => {
  it('a repeated Upstash-Deduplication-Id answers 202 with the original messageId and delivers once', async () => {
    const url = dest.url('/dedup-id');
    const publish = () =>
      api(`/v2/publish/${url}`, {
        method: 'POST',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json', 'upstash-deduplication-id': 'order-42' },
      });
    const first = await publish();
    expect(first.status).toBe(200);
    const { messageId } = (await first.json()) as { messageId: string };
    const second = await publish();
    expect(second.status).toBe(202);
    expect(await second.json()).toEqual({ messageId, deduplicated: true });
    const viaSdk = await client.publishJSON({ url, body: { a: 2 }, deduplicationId: 'order-42' });
    expect(viaSdk).toEqual({ messageId, deduplicated: true });
    await dest.waitFor('/dedup-id', 1);
    await sleep(150);
    expect(dest.for('/dedup-id')).toHaveLength(1);
  });

  it('content-based deduplication keys on the body (and destination, content type, forwarded headers)', async () => {
    const url = dest.url('/dedup-content');
    const a = await client.publishJSON({ url, body: { same: true }, contentBasedDeduplication: true });
    const b = await client.publishJSON({ url, body: { same: true }, contentBasedDeduplication: true });
    const c = await client.publishJSON({ url, body: { same: false }, contentBasedDeduplication: true });
    const d = await client.publishJSON({
      url,
      body: { same: true },
      contentBasedDeduplication: true,
      headers: { 'X-Other': '1' },
    });
    expect(b).toEqual({ messageId: a.messageId, deduplicated: true });
    expect(new Set([a.messageId, c.messageId, d.messageId]).size).toBe(3);
    await dest.waitFor('/dedup-content', 3);
    await sleep(150);
    expect(dest.for('/dedup-content')).toHaveLength(3);
  });
});

describe('qstash broker: retries and the DLQ', () => {
  it('retries a 500 and stops at the first 2xx, incrementing Upstash-Retried under one messageId', async () => {
    const { messageId } = await client.publishJSON({
      url: dest.url('/flaky', (n) => ({ status: n < 2 ? 500 : 200 })),
      body: { x: 1 },
    });
    const got = await dest.waitFor('/flaky', 3);
    await sleep(150);
    expect(dest.for('/flaky')).toHaveLength(3);
    expect(got.map((d) => d.headers['upstash-retried'])).toEqual(['0', '1', '2']);
    expect(new Set(got.map((d) => d.headers['upstash-message-id']))).toEqual(new Set([messageId]));
    expect(got.every((d) => d.verified && d.body === '{"x":1}')).toBe(true);
    const view = broker.message(messageId)!;
    expect(view.state).toBe('DELIVERED');
    expect(view.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
  });

  it('waits as long as a Retry-After response header asks', async () => {
    dest.script('/retry-after', (n) => (n === 0 ? { status: 503, headers: { 'Retry-After': '1' } } : { status: 200 }));
    await client.publishJSON({ url: dest.url('/retry-after'), body: {} });
    const [a, b] = await dest.waitFor('/retry-after', 2, 4000);
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(990); // the dev backoff alone would be 20 ms
  });

  it('uses an Upstash-Retry-Delay expression for the gap between attempts', async () => {
    await client.publishJSON({
      url: dest.url('/retry-delay', (n) => ({ status: n === 0 ? 500 : 200 })),
      body: {},
      retryDelay: '300 * (1 + retried)',
    });
    const [a, b] = await dest.waitFor('/retry-delay', 2);
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(290);
  });

  it('counts a response slower than Upstash-Timeout as a failed attempt and retries', async () => {
    const { messageId } = await client.publishJSON({
      url: dest.url('/slow', (n) => (n === 0 ? { status: 200, delayMs: 1000 } : { status: 200 })),
      body: {},
      timeout: rawDuration('300ms'),
    });
    await dest.waitFor('/slow', 2);
    const view = await until(
      () => broker.message(messageId)?.state === 'DELIVERED' && broker.message(messageId),
      3000,
      'delivery',
    );
    expect(view.attempts[0]!.error).toMatch(/timed out/);
    expect(view.attempts[1]!.status).toBe(200);
  });

  it('moves a message to the DLQ after the last retry; dlq.retry re-delivers it as a new message', async () => {
    let healthy = false;
    const url = dest.url('/dead', () => (healthy ? { status: 200 } : { status: 500, body: 'boom' }));
    const { messageId } = await client.publishJSON({ url, body: { job: 7 }, retries: 1 });
    await dest.waitFor('/dead', 2);
    const { messages } = await until(async () => {
      const r = await client.dlq.listMessages({ filter: { messageId } });
      return r.messages.length > 0 && r;
    });
    expect(messages).toHaveLength(1);
    const entry = messages[0]!;
    expect(entry).toMatchObject({
      messageId,
      url,
      method: 'POST',
      body: '{"job":7}',
      maxRetries: 1,
      responseStatus: 500,
      responseBody: 'boom',
    });
    expect(entry.dlqId).toBeTruthy();
    expect(dest.for('/dead')).toHaveLength(2);
    expect(await stateOf(messageId)).toBe('FAILED');

    healthy = true;
    const retried = await client.dlq.retry(entry.dlqId);
    const newId = retried.responses[0]!.messageId;
    expect(newId).toMatch(/^msg_/);
    expect(newId).not.toBe(messageId);
    const all = await dest.waitFor('/dead', 3);
    expect(all[2]!.headers['upstash-message-id']).toBe(newId);
    expect(all[2]!.headers['upstash-retried']).toBe('0');
    expect(all[2]!.body).toBe('{"job":7}');
    expect((await client.dlq.listMessages({ filter: { messageId } })).messages).toHaveLength(0);
  });

  it('supports GET /v2/dlq/{id}, POST /v2/dlq/retry/{id} and dlq.delete', async () => {
    const url = dest.url('/dead2', (n) => ({ status: n < 2 ? 500 : 204 }));
    const first = await client.publishJSON({ url, body: { n: 1 }, retries: 0 });
    const second = await client.publishJSON({ url, body: { n: 2 }, retries: 0 });
    const dlqIdOf = async (messageId: string) =>
      (await until(async () => (await client.dlq.listMessages({ filter: { messageId } })).messages[0])).dlqId;
    const [dlq1, dlq2] = [await dlqIdOf(first.messageId), await dlqIdOf(second.messageId)];
    const got = await api(`/v2/dlq/${dlq1}`);
    expect(await got.json()).toMatchObject({ dlqId: dlq1, messageId: first.messageId, responseStatus: 500 });
    const retry = await api(`/v2/dlq/retry/${dlq1}`, { method: 'POST' });
    const { messageId } = (await retry.json()) as { messageId: string };
    const delivered = await dest.waitFor('/dead2', 3);
    expect(delivered[2]!.headers['upstash-message-id']).toBe(messageId);
    expect(await client.dlq.delete(dlq2)).toEqual({ deleted: 1 });
    expect((await api(`/v2/dlq/${dlq2}`)).status).toBe(404);
  });

  it('489 with Upstash-NonRetryable-Error goes straight to the DLQ; 489 without it is retried', async () => {
    const fatal = await client.publishJSON({
      url: dest.url('/fatal', () => ({
        status: 489,
        headers: { 'Upstash-NonRetryable-Error': 'true' },
        body: 'bad input',
      })),
      body: {},
    });
    await client.publishJSON({ url: dest.url('/489-plain', (n) => ({ status: n === 0 ? 489 : 200 })), body: {} });
    const { messages } = await until(async () => {
      const r = await client.dlq.listMessages({ filter: { messageId: fatal.messageId } });
      return r.messages.length > 0 && r;
    });
    expect(messages[0]).toMatchObject({ responseStatus: 489, responseBody: 'bad input' });
    await dest.waitFor('/489-plain', 2);
    expect(dest.for('/fatal')).toHaveLength(1);
  });

  it('calls Upstash-Callback per attempt and Upstash-Failure-Callback with the dlqId, both signed', async () => {
    const { messageId } = await client.publishJSON({
      url: dest.url('/cb-source', () => ({ status: 500, body: 'nope' })),
      body: { src: true },
      retries: 0,
      callback: dest.url('/cb'),
      failureCallback: dest.url('/cb-failure'),
    });
    const [cb] = await dest.waitFor('/cb', 1);
    const [fail] = await dest.waitFor('/cb-failure', 1);
    expect(cb!.verified && fail!.verified).toBe(true);
    const cbBody = JSON.parse(cb!.body) as Record<string, unknown>;
    expect(cbBody).toMatchObject({
      status: 500,
      sourceMessageId: messageId,
      retried: 0,
      maxRetries: 0,
      body: Buffer.from('nope').toString('base64'),
    });
    const failBody = JSON.parse(fail!.body) as Record<string, unknown>;
    const dlqId = broker.message(messageId)!.dlqId;
    expect(failBody).toMatchObject({
      sourceMessageId: messageId,
      dlqId,
      sourceBody: Buffer.from('{"src":true}').toString('base64'),
    });
  });
});

describe('qstash broker: errors and dev controls', () => {
  it('rejects a wrong or missing token with 401 JSON', async () => {
    const bad = new Client({ baseUrl: broker.url, token: 'wrong', retry: false });
    const err = await statusOf(bad.publishJSON({ url: dest.url('/never'), body: {} }));
    expect(err.status).toBe(401);
    expect(JSON.parse(err.message)).toHaveProperty('error');
    const missing = await fetch(`${broker.url}/v2/keys`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toHaveProperty('error');
    expect(dest.for('/never')).toHaveLength(0);
  });

  it('answers 400 naming the bad header or destination', async () => {
    const url = dest.url('/never');
    expect(await statusOf(client.publishJSON({ url, body: {}, delay: rawDuration('soon') }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('Upstash-Delay'),
    });
    expect(await statusOf(client.publishJSON({ url, body: {}, retries: -1 }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('Upstash-Retries'),
    });
    expect(await statusOf(client.publishJSON({ url, body: {}, retryDelay: 'pow(2,' }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('Upstash-Retry-Delay'),
    });
    const badDest = await api('/v2/publish/ftp://example.com/x', { method: 'POST', body: 'x' });
    expect(badDest.status).toBe(400);
    expect(((await badDest.json()) as { error: string }).error).toMatch(/destination/);
    const badBatch = await api('/v2/batch', { method: 'POST', body: '{"not":"an array"}' });
    expect(badBatch.status).toBe(400);
    const unknown = await api('/v2/nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toHaveProperty('error');
    expect(dest.for('/never')).toHaveLength(0);
  });

  it('GET /v2/keys returns the signing keys', async () => {
    expect(await (await api('/v2/keys')).json()).toEqual({
      current: KEYS.currentSigningKey,
      next: KEYS.nextSigningKey,
    });
  });

  it('pause holds deliveries (publishing still works) until resume, via HTTP and the handle', async () => {
    expect((await fetch(`${broker.url}/__dev/pause`, { method: 'POST' })).status).toBe(200);
    const { messageId } = await client.publishJSON({ url: dest.url('/paused'), body: {} });
    await sleep(200);
    expect(dest.for('/paused')).toHaveLength(0);
    const dev = (await (await fetch(`${broker.url}/__dev/messages/${messageId}`)).json()) as {
      state: string;
      attempts: unknown[];
    };
    expect(dev).toMatchObject({ state: 'CREATED', attempts: [] });
    broker.resume();
    await dest.waitFor('/paused', 1);

    broker.pause();
    await client.publishJSON({ url: dest.url('/paused2'), body: {} });
    await sleep(100);
    expect(dest.for('/paused2')).toHaveLength(0);
    await fetch(`${broker.url}/__dev/resume`, { method: 'POST' });
    await dest.waitFor('/paused2', 1);
  });

  it('fail-publish makes the next N publishes answer 500, then publishing recovers', async () => {
    const res = await fetch(`${broker.url}/__dev/fail-publish`, { method: 'POST', body: JSON.stringify({ count: 2 }) });
    expect(await res.json()).toEqual({ failPublish: 2 });
    const url = dest.url('/fail-publish');
    expect((await statusOf(client.publishJSON({ url, body: { n: 1 } }))).status).toBe(500);
    expect((await statusOf(client.publishJSON({ url, body: { n: 2 } }))).status).toBe(500);
    await client.publishJSON({ url, body: { n: 3 } });
    broker.failNextPublishes(1);
    expect(broker.publishFailuresLeft()).toBe(1);
    expect((await statusOf(client.publishJSON({ url, body: { n: 4 } }))).status).toBe(500);
    expect(broker.publishFailuresLeft()).toBe(0);
    const [d] = await dest.waitFor('/fail-publish', 1);
    await sleep(100);
    expect(dest.for('/fail-publish')).toHaveLength(1);
    expect(d!.body).toBe('{"n":3}');
    const bad = await fetch(`${broker.url}/__dev/fail-publish`, { method: 'POST', body: '{"count":-1}' });
    expect(bad.status).toBe(400);
  });

  it('lists every message with its state and attempts under /__dev/messages', async () => {
    const { messageId } = await client.publishJSON({
      url: dest.url('/listed', (n) => ({ status: n === 0 ? 502 : 200 })),
      body: {},
    });
    await dest.waitFor('/listed', 2);
    await until(() => broker.message(messageId)?.state === 'DELIVERED', 1000, 'delivered');
    type Listed = {
      messageId: string;
      state: string;
      retried: number;
      attempts: { retried: number; status: number }[];
    };
    const body = (await (await fetch(`${broker.url}/__dev/messages`)).json()) as {
      paused: boolean;
      published: number;
      delivered: number;
      messages: Listed[];
    };
    expect(body.paused).toBe(false);
    // Running totals since start, whatever the list has forgotten: a retried message counts once.
    expect(body.published).toBeGreaterThanOrEqual(body.messages.length);
    expect(body.delivered).toBe(body.messages.filter((m) => m.state === 'DELIVERED').length);
    const mine = body.messages.find((m) => m.messageId === messageId);
    expect(mine).toMatchObject({ state: 'DELIVERED', retried: 1 });
    expect(mine!.attempts.map((a) => [a.retried, a.status])).toEqual([
      [0, 502],
      [1, 200],
    ]);
    expect((await fetch(`${broker.url}/__dev/messages/msg_unknown`)).status).toBe(404);
  });
});

describe('qstash broker: robustness', () => {
  it('answers malformed input with 4xx JSON and keeps serving', async () => {
    const badMethod = await api(`/v2/publish/${dest.url('/never')}`, {
      method: 'POST',
      body: 'x',
      headers: { 'upstash-method': 'FROB' },
    });
    expect(badMethod.status).toBe(400);
    expect(((await badMethod.json()) as { error: string }).error).toMatch(/Upstash-Method/);
    const badTimeout = await api(`/v2/publish/${dest.url('/never')}`, {
      method: 'POST',
      body: 'x',
      headers: { 'upstash-timeout': 'forever' },
    });
    expect(((await badTimeout.json()) as { error: string }).error).toMatch(/Upstash-Timeout/);
    expect((await api('/v2/messages/%E0%A4%A')).status).toBe(400);
    const badItem = await api('/v2/batch', {
      method: 'POST',
      body: JSON.stringify([{ destination: dest.url('/never'), headers: { n: 1 } }]),
    });
    expect(badItem.status).toBe(400);
    expect(((await badItem.json()) as { error: string }).error).toMatch(/batch\[0\]\.headers/);
    const { port } = new URL(broker.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end('GARBAGE \x00\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    expect((await api('/v2/keys')).status).toBe(200);
    expect(dest.for('/never')).toHaveLength(0);
  });

  it('close() stops pending timers and aborts in-flight deliveries promptly', async () => {
    const short = await startQStashBroker({ token: TOKEN, ...KEYS });
    const other = new Client({ baseUrl: short.url, token: TOKEN, retry: false });
    await other.publishJSON({ url: dest.url('/close-slow', () => ({ status: 200, delayMs: 3000 })), body: {} });
    await other.publishJSON({ url: dest.url('/close-later'), body: {}, delay: rawDuration('300ms') });
    await dest.waitFor('/close-slow', 1);
    const started = Date.now();
    await short.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await sleep(500);
    expect(dest.for('/close-later')).toHaveLength(0);
    expect(dest.for('/close-slow')).toHaveLength(1);
    await expect(fetch(`${short.url}/v2/keys`)).rejects.toThrow();
  });
});

describe('qstash broker: parsers', () => {
  it('parses QStash durations and Retry-After values', () => {
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('1m')).toBe(60_000);
    expect(parseDuration('1d10h30m')).toBe(86_400_000 + 36_000_000 + 1_800_000);
    expect(parseDuration('45')).toBe(45_000);
    expect(parseDuration('300ms')).toBe(300);
    for (const bad of ['', 's', '10x', '-5s', '1m 2s', '10s5']) expect(parseDuration(bad)).toBeUndefined();
    expect(parseRetryAfter('7', 0)).toBe(7000);
    expect(parseRetryAfter('6m5s', 0)).toBe(365_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('999999999', 0)).toBe(86_400_000);
  });

  it('evaluates retry-delay expressions safely', () => {
    expect(compileRetryDelay('1000 * (1 + retried)')(2)).toBe(3000);
    expect(compileRetryDelay('max(10, pow(2, retried))')(5)).toBe(32);
    expect(compileRetryDelay('-floor(2.5) + abs(-3)')(0)).toBe(1);
    for (const bad of ['', 'pow(2)', 'process.exit(1)', '1 +', '2 ** 3'])
      expect(() => compileRetryDelay(bad)).toThrow();
  });
});
