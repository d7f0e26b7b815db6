import { Client, QstashError, type FlowControl } from '@upstash/qstash';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { QStashBroker } from './qstash-broker.js';
import { freshBroker, startDestination, TEST_TOKEN, until } from './qstash-broker/testing.js';

/**
 * Bulk actions, filters, count, labels and flow-control keys, driven by the real `@upstash/qstash`
 * client. Several cases port the assertions of the client's own tests (messages.test.ts,
 * dlq.test.ts) that the stand-in used to fail. Each test gets a fresh broker, so counts are exact.
 */

let dest: Awaited<ReturnType<typeof startDestination>>;
let broker: QStashBroker;
let client: Client;

beforeAll(async () => {
  dest = await startDestination();
});
afterAll(async () => {
  await dest.close();
});
async function fresh(): Promise<void> {
  ({ broker, client } = await freshBroker());
}
afterEach(async () => {
  await broker?.close();
});

const far = { delay: '1d' as const };
const stateOf = (id: string) => broker.message(id)?.state;

async function rejection(p: Promise<unknown>): Promise<QstashError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QstashError);
  return err as QstashError;
}

/** Publishes to a destination that answers `status`, with no retries, and waits for the DLQ entry. */
async function deadLetter(
  path: string,
  status: number,
  extra: { label?: string | string[]; flowControl?: FlowControl } = {},
) {
  const { messageId } = (await client.publishJSON({
    url: dest.url(path, status),
    body: { path },
    retries: 0,
    ...extra,
  })) as { messageId: string };
  await until(() => broker.message(messageId)?.state === 'FAILED', `${messageId} in the DLQ`);
  return messageId;
}

describe('messages.cancel: filters and count', () => {
  it('cancel({ all: true, count: 1 }) cancels exactly one; the next cancel({ all: true }) the rest', async () => {
    await fresh();
    const [a, b] = await client.batchJSON([
      { url: 'https://example.com/a', body: { n: 1 }, ...far },
      { url: 'https://example.com/b', body: { n: 2 }, ...far },
    ]);
    expect(await client.messages.cancel({ all: true, count: 1 })).toEqual({ cancelled: 1 });
    expect([stateOf(a!.messageId), stateOf(b!.messageId)].sort()).toEqual(['CANCELLED', 'CREATED']);
    expect(await client.messages.cancel({ all: true })).toEqual({ cancelled: 1 });
    expect(await client.messages.cancel({ all: true })).toEqual({ cancelled: 0 });
  });

  it('cancel({ filter: { url } }) leaves a message with another URL alone; count applies after the filter', async () => {
    await fresh();
    const keep = await client.publishJSON({ url: 'https://example.com/keep', body: {}, ...far });
    const [x, y] = await client.batchJSON([
      { url: 'https://example.com/drop', body: { n: 1 }, ...far },
      { url: 'https://example.com/drop', body: { n: 2 }, ...far },
    ]);
    expect(await client.messages.cancel({ filter: { url: 'https://example.com/drop' }, count: 1 })).toEqual({
      cancelled: 1,
    });
    expect(await client.messages.cancel({ filter: { url: 'https://example.com/drop' } })).toEqual({ cancelled: 1 });
    expect([stateOf(x!.messageId), stateOf(y!.messageId), stateOf(keep.messageId)]).toEqual([
      'CANCELLED',
      'CANCELLED',
      'CREATED',
    ]);
  });

  it('multi-value flowControlKey, label, url, host and path filters match any value; filters combine with AND', async () => {
    await fresh();
    const pub = (url: string, extra: object = {}) =>
      client.publish({ url, body: 'x', ...far, ...extra }).then((r) => r.messageId);
    const fcA = await pub('https://example.com/fc', { flowControl: { key: 'fc-a', parallelism: 1 } });
    const fcB = await pub('https://example.com/fc', { flowControl: { key: 'fc-b', parallelism: 1 } });
    const fcC = await pub('https://example.com/fc', { flowControl: { key: 'fc-c', parallelism: 1 } });
    expect(await client.messages.cancel({ filter: { flowControlKey: ['fc-a', 'fc-b'] } })).toEqual({ cancelled: 2 });
    expect([stateOf(fcA), stateOf(fcB), stateOf(fcC)]).toEqual(['CANCELLED', 'CANCELLED', 'CREATED']);

    const lab1 = await pub('https://example.com/l', { label: ['t1', 'x'] });
    const lab2 = await pub('https://example.com/l', { label: 't2' });
    const lab3 = await pub('https://example.com/l', { label: 't3' });
    expect(await client.messages.cancel({ filter: { label: ['x', 't2'] } })).toEqual({ cancelled: 2 });
    expect([stateOf(lab1), stateOf(lab2), stateOf(lab3)]).toEqual(['CANCELLED', 'CANCELLED', 'CREATED']);

    const com = await pub('https://example.com/host-test');
    const org = await pub('https://example.org/host-test');
    const orgOther = await pub('https://example.org/other-path');
    expect(await client.messages.cancel({ filter: { host: 'example.org', path: '/host-test' } })).toEqual({
      cancelled: 1,
    });
    expect([stateOf(com), stateOf(org), stateOf(orgOther)]).toEqual(['CREATED', 'CANCELLED', 'CREATED']);
    expect(
      await client.messages.cancel({
        filter: { url: ['https://example.com/host-test', 'https://example.org/other-path'] },
      }),
    ).toEqual({ cancelled: 2 });
    expect(await client.messages.cancel({ filter: { callerIp: '10.9.9.9' } })).toEqual({ cancelled: 0 });
    expect(await client.messages.cancel({ filter: { callerIp: ['10.9.9.9', '127.0.0.1'], label: 't3' } })).toEqual({
      cancelled: 1,
    });
    expect(stateOf(lab3)).toBe('CANCELLED');
  });

  it('an unknown filter is a 400 naming it, and cancels nothing', async () => {
    await fresh();
    const { messageId } = await client.publishJSON({ url: 'https://example.com/u', body: {}, label: 'keep', ...far });
    const err = await rejection(client.messages.cancel({ filter: { labeel: 'keep' } } as never));
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message).error).toMatch(/unknown query parameter "labeel" for DELETE \/v2\/messages/);
    const badCount = await fetch(`${broker.url}/v2/messages?count=0`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(badCount.status).toBe(400);
    expect(stateOf(messageId)).toBe('CREATED');
  });
});

describe('labels and flow-control keys on messages and DLQ entries', () => {
  it('are kept and reported: label (first), labels (all), flowControlKey, parallelism, rate, period in seconds', async () => {
    await fresh();
    const flowControl = { key: 'tenant-7', parallelism: 2, rate: 5, period: '1m' as const };
    const pending = await client.publishJSON({
      url: 'https://example.com/kept',
      body: {},
      label: ['tenant-7', 'outbox'],
      flowControl,
      ...far,
    });
    const expected = {
      label: 'tenant-7',
      labels: ['tenant-7', 'outbox'],
      flowControlKey: 'tenant-7',
      parallelism: 2,
      rate: 5,
      period: 60,
    };
    expect(await client.messages.get(pending.messageId)).toMatchObject(expected);
    const dead = await deadLetter('/kept-dead', 500, { label: ['tenant-7', 'outbox'], flowControl });
    const [entry] = (await client.dlq.listMessages({ filter: { messageId: dead } })).messages;
    expect(entry).toMatchObject({ ...expected, responseStatus: 500 });
  });

  it('rejects a flow-control value without parallelism or rate, naming the header', async () => {
    await fresh();
    const res = await fetch(`${broker.url}/v2/publish/https://example.com/x`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        'upstash-flow-control-key': 'k',
        'upstash-flow-control-value': 'period=1m',
      },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/Upstash-Flow-Control-Value/);
  });
});

describe('DLQ: filters, count and cursors', () => {
  it('listMessages filters by label (a tenant view), responseStatus, flowControlKey, multi-value url and messageId', async () => {
    await fresh();
    const t1 = await deadLetter('/d1', 500, { label: 'tenant-1' });
    const t2 = await deadLetter('/d2', 404, { label: 'tenant-2', flowControl: { key: 'fk', rate: 1 } });
    const t3 = await deadLetter('/d3', 404, { label: ['tenant-3', 'tenant-1'] });
    const ids = async (filter: object) =>
      (await client.dlq.listMessages({ filter })).messages.map((m) => m.messageId).sort();
    expect(await ids({ label: 'tenant-1' })).toEqual([t1, t3].sort());
    expect(await ids({ label: ['tenant-2', 'tenant-3'] })).toEqual([t2, t3].sort());
    expect(await ids({ responseStatus: 404 })).toEqual([t2, t3].sort());
    expect(await ids({ responseStatus: [500, 404], label: 'tenant-2' })).toEqual([t2]);
    expect(await ids({ flowControlKey: 'fk' })).toEqual([t2]);
    expect(await ids({ url: [dest.url('/d1'), dest.url('/d2')] })).toEqual([t1, t2].sort());
    expect(await ids({ messageId: t3 })).toEqual([t3]);
    expect(await ids({ urlGroup: 'no-such-group' })).toEqual([]);
    expect(await ids({ toDate: Date.now() - 60_000 })).toEqual([]);
  });

  it('delete and retry honour count with all and with a filter, and hand back a cursor while more match', async () => {
    await fresh();
    for (const p of ['/c1', '/c2', '/c3']) await deadLetter(p, 500, { label: 'bulk' });
    await deadLetter('/other', 500, { label: 'other' });
    const first = await client.dlq.delete({ filter: { label: 'bulk' }, count: 1 });
    expect(first.deleted).toBe(1);
    expect(first.cursor).toBeTruthy();
    const rest = await client.dlq.delete({ filter: { label: 'bulk' }, cursor: first.cursor });
    expect(rest).toEqual({ deleted: 2 });
    expect((await client.dlq.listMessages()).messages.map((m) => m.label)).toEqual(['other']);

    await deadLetter('/r1', 500, { label: 'again' });
    // Healthy destinations from here on, so retried messages are delivered instead of dead-lettered again.
    dest.url('/other', 200);
    dest.url('/r1', 200);
    const retried = await client.dlq.retry({ all: true, count: 1 });
    expect(retried.responses).toHaveLength(1);
    expect(retried.cursor).toBeTruthy();
    expect((await client.dlq.listMessages()).messages).toHaveLength(1);
    const byFilter = await client.dlq.retry({ filter: { label: 'again' }, count: 1 });
    expect(byFilter.responses).toHaveLength(1);
    expect(byFilter.cursor).toBeUndefined();
    expect((await client.dlq.listMessages()).messages).toHaveLength(0);
  });

  it('listMessages pages with count and cursor, oldest first', async () => {
    await fresh();
    const a = await deadLetter('/p1', 500);
    const b = await deadLetter('/p2', 500);
    const page1 = await client.dlq.listMessages({ count: 1 });
    expect(page1.messages.map((m) => m.messageId)).toEqual([a]);
    const page2 = await client.dlq.listMessages({ count: 1, cursor: page1.cursor });
    expect(page2.messages.map((m) => m.messageId)).toEqual([b]);
    expect(page2.cursor).toBeUndefined();
  });

  it('an unknown filter, or host/path (which the DLQ does not take), is a 400 and deletes nothing', async () => {
    await fresh();
    const id = await deadLetter('/typo', 500, { label: 'typo' });
    const err = await rejection(client.dlq.delete({ filter: { labeel: 'typo' } } as never));
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message).error).toMatch(/"labeel"/);
    const host = await rejection(client.dlq.listMessages({ filter: { host: '127.0.0.1' } } as never));
    expect(JSON.parse(host.message).error).toMatch(/unknown query parameter "host" for GET \/v2\/dlq/);
    expect((await client.dlq.listMessages()).messages.map((m) => m.messageId)).toEqual([id]);
  });

  it('retrying unknown dlqIds is a 404 and retries nothing', async () => {
    await fresh();
    const id = await deadLetter('/known', 500);
    const [entry] = (await client.dlq.listMessages()).messages;
    expect((await rejection(client.dlq.retry([entry!.dlqId, 'no-such-dlq-id']))).status).toBe(404);
    expect((await client.dlq.listMessages()).messages.map((m) => m.messageId)).toEqual([id]);
  });
});
