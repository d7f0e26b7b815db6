import { Client, QstashError, Receiver } from '@upstash/qstash';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QStashBroker } from './qstash-broker.js';
import { freshBroker, startDestination, TEST_KEYS, TEST_TOKEN, until } from './qstash-broker/testing.js';

/** Schedules, logs (/v2/events) and the endpoints the stand-in does not offer, through the real client. */

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

async function rejection(p: Promise<unknown>): Promise<{ status?: number; error: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QstashError);
  const { status, message } = err as QstashError;
  return { status, error: (JSON.parse(message) as { error: string }).error };
}

describe('schedules', () => {
  it('create, get and list report what was scheduled, in QStash shapes', async () => {
    await fresh();
    const { scheduleId } = await client.schedules.create({
      destination: 'https://example.com/cron',
      body: JSON.stringify({ hello: 'world' }),
      headers: { 'test-header': 'test-value', 'content-type': 'application/json' },
      method: 'PUT',
      callback: 'https://example.com/cb',
      failureCallback: 'https://example.com/failure',
      delay: 10,
      retries: 5,
      retryDelay: '1000 * retried',
      cron: '*/10 * * * * ',
      label: ['tenant-1', 'reports'],
      flowControl: { key: 'fk', parallelism: 2, rate: 3, period: '1d' },
    });
    expect(scheduleId).toMatch(/^scd_/);
    const schedule = await client.schedules.get(scheduleId);
    expect(schedule).toMatchObject({
      scheduleId,
      cron: '*/10 * * * *',
      destination: 'https://example.com/cron',
      method: 'PUT',
      header: { 'Test-Header': ['test-value'], 'Content-Type': ['application/json'] },
      body: '{"hello":"world"}',
      retries: 5,
      delay: 10,
      retryDelayExpression: '1000 * retried',
      callback: 'https://example.com/cb',
      failureCallback: 'https://example.com/failure',
      isPaused: false,
      label: 'tenant-1',
      labels: ['tenant-1', 'reports'],
      flowControlKey: 'fk',
      parallelism: 2,
      rate: 3,
      period: 86_400,
    });
    // */10: the next tick is at most ten minutes away and on a minute boundary.
    expect(schedule.nextScheduleTime! - Date.now()).toBeGreaterThan(0);
    expect(schedule.nextScheduleTime! - Date.now()).toBeLessThanOrEqual(600_000);
    expect(schedule.nextScheduleTime! % 60_000).toBe(0);
    const other = await client.schedules.create({
      destination: 'https://example.org/',
      cron: 'CRON_TZ=America/New_York 0 9 * * 1',
    });
    expect((await client.schedules.list()).map((s) => s.scheduleId).sort()).toEqual(
      [scheduleId, other.scheduleId].sort(),
    );
  });

  it('pause and resume toggle isPaused; delete removes; a create with an existing scheduleId replaces its settings', async () => {
    await fresh();
    const { scheduleId } = await client.schedules.create({
      destination: 'https://example.com/a',
      cron: '1 1 1 1 1',
      scheduleId: 'nightly-report',
      body: 'payload',
    });
    expect(scheduleId).toBe('nightly-report');
    await client.schedules.pause({ schedule: scheduleId });
    expect((await client.schedules.get(scheduleId)).isPaused).toBe(true);
    expect((await client.schedules.get(scheduleId)).nextScheduleTime).toBeUndefined();
    await client.schedules.resume({ schedule: scheduleId });
    expect((await client.schedules.get(scheduleId)).isPaused).toBe(false);
    await client.schedules.create({ destination: 'https://example.com/b', cron: '*/5 * * * *', scheduleId });
    const [only, ...none] = await client.schedules.list();
    expect(none).toEqual([]);
    expect(only).toMatchObject({ scheduleId, destination: 'https://example.com/b', cron: '*/5 * * * *' });
    expect(only!.body).toBeUndefined();
    await client.schedules.delete(scheduleId);
    expect((await rejection(client.schedules.get(scheduleId))).status).toBe(404);
    expect(await client.schedules.list()).toEqual([]);
  });

  it('a firing delivers a signed message carrying Upstash-Schedule-Id, and the schedule reports its outcome', async () => {
    await fresh();
    const url = dest.url('/scheduled');
    const { scheduleId } = await client.schedules.create({
      destination: url,
      cron: '0 0 1 1 *',
      body: '{"job":"digest"}',
      headers: { 'content-type': 'application/json' },
    });
    const messageId = broker.triggerSchedule(scheduleId)!;
    const viaHttp = (await (
      await fetch(`${broker.url}/__dev/schedules/${scheduleId}/trigger`, { method: 'POST' })
    ).json()) as { messageId: string };
    const deliveries = await until(
      () => dest.deliveries('/scheduled').length >= 2 && dest.deliveries('/scheduled'),
      'two scheduled deliveries',
    );
    expect(deliveries.map((d) => d.headers['upstash-message-id']).sort()).toEqual(
      [messageId, viaHttp.messageId].sort(),
    );
    for (const d of deliveries) {
      expect(d.headers['upstash-schedule-id']).toBe(scheduleId);
      expect(d.body).toBe('{"job":"digest"}');
      await expect(
        new Receiver(TEST_KEYS).verify({ signature: String(d.headers['upstash-signature']), body: d.body, url }),
      ).resolves.toBe(true);
    }
    expect((await client.messages.get(messageId)).scheduleId).toBe(scheduleId);
    const schedule = await until(async () => {
      const s = await client.schedules.get(scheduleId);
      return Object.values(s.lastScheduleStates ?? {})[0] === 'SUCCESS' && s;
    }, 'SUCCESS state');
    expect(Object.keys(schedule.lastScheduleStates!)).toEqual([viaHttp.messageId]);
    expect(schedule.lastScheduleTime).toBeGreaterThan(0);
    expect((await fetch(`${broker.url}/__dev/schedules/scd_nope/trigger`, { method: 'POST' })).status).toBe(404);
  });

  it('a failed scheduled message is found in the DLQ and the logs by its scheduleId', async () => {
    await fresh();
    const { scheduleId } = await client.schedules.create({
      destination: dest.url('/scheduled-fail', 500),
      cron: '0 0 1 1 *',
      retries: 0,
    });
    const other = await client.schedules.create({
      destination: dest.url('/scheduled-fail-2', 500),
      cron: '0 0 1 1 *',
      retries: 0,
    });
    const messageId = broker.triggerSchedule(scheduleId)!;
    broker.triggerSchedule(other.scheduleId);
    await until(() => broker.messages().filter((m) => m.state === 'FAILED').length === 2, 'both in the DLQ');
    expect((await client.dlq.listMessages({ filter: { scheduleId } })).messages.map((m) => m.messageId)).toEqual([
      messageId,
    ]);
    expect(new Set((await client.logs({ filter: { scheduleId } })).logs.map((l) => l.messageId))).toEqual(
      new Set([messageId]),
    );
    expect(Object.values((await client.schedules.get(scheduleId)).lastScheduleStates ?? {})).toEqual(['FAIL']);
  });

  it('rejects a bad cron, a seconds field, a bad schedule id and a missing cron with a 400 naming the problem', async () => {
    await fresh();
    const create = (cron: string, scheduleId?: string) =>
      client.schedules.create({ destination: 'https://example.com/', cron, scheduleId });
    expect(await rejection(create('61 * * * *'))).toMatchObject({
      status: 400,
      error: expect.stringContaining('Upstash-Cron'),
    });
    expect(await rejection(create('*/5 * * * * *'))).toMatchObject({
      status: 400,
      error: expect.stringContaining('5 fields'),
    });
    expect(await rejection(create('CRON_TZ=Not/AZone 0 9 * * *'))).toMatchObject({
      status: 400,
      error: expect.stringContaining('Upstash-Cron'),
    });
    expect(await rejection(create('* * * * *', 'has space'))).toMatchObject({
      status: 400,
      error: expect.stringContaining('Upstash-Schedule-Id'),
    });
    const noCron = await fetch(`${broker.url}/v2/schedules/https://example.com/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(noCron.status).toBe(400);
    expect(await client.schedules.list()).toEqual([]);
  });
});

describe('logs (GET /v2/events)', () => {
  it('records every state change, newest first, with response details on ERROR entries', async () => {
    await fresh();
    const ok = await client.publishJSON({ url: dest.url('/log-ok'), body: {} });
    const bad = await client.publishJSON({ url: dest.url('/log-bad', 503), body: {}, retries: 1 });
    await until(
      () => broker.message(ok.messageId)?.state === 'DELIVERED' && broker.message(bad.messageId)?.state === 'FAILED',
      'both settled',
    );
    const states = async (id: string) => (await client.logs({ messageIds: [id] })).logs.map((l) => l.state);
    expect(await states(ok.messageId)).toEqual(['DELIVERED', 'ACTIVE', 'CREATED']);
    expect(await states(bad.messageId)).toEqual(['FAILED', 'ERROR', 'ACTIVE', 'RETRY', 'ERROR', 'ACTIVE', 'CREATED']);
    // With messageIds the client drops `filter`, so narrow by URL here.
    const errors = (await client.logs({ filter: { state: 'ERROR', url: dest.url('/log-bad') } })).logs;
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ messageId: bad.messageId, url: dest.url('/log-bad'), responseStatus: 503 });
    expect(Buffer.from(String((errors[0] as { responseBody?: string }).responseBody), 'base64').toString()).toBe(
      'answer for /log-bad',
    );
    const inProgress = (await client.logs({ filter: { state: 'IN_PROGRESS' } })).logs.map((l) => l.state);
    expect(new Set(inProgress)).toEqual(new Set(['ACTIVE', 'RETRY', 'ERROR']));
  });

  it('filters by label (multi-value, label first and labels all), url, host and path; events() is the old name', async () => {
    await fresh();
    const ab = await client.publish({ url: 'https://example.com/one', body: 'x', label: ['a', 'b'], delay: '1d' });
    const bc = await client.publish({ url: 'https://example.org/two', body: 'x', label: ['b', 'c'], delay: '1d' });
    const c = await client.publish({ url: 'https://example.org/three', body: 'x', label: 'c', delay: '1d' });
    const ids = async (filter: object) =>
      [...new Set((await client.logs({ filter })).logs.map((l) => l.messageId))].sort();
    const [abId, bcId, cId] = [ab, bc, c].map((r) => (r as { messageId: string }).messageId);
    expect(await ids({ label: ['a', 'b'] })).toEqual([abId, bcId].sort());
    const [entry] = (await client.logs({ filter: { label: 'a' } })).logs;
    expect(entry).toMatchObject({ label: 'a', labels: ['a', 'b'] });
    expect(await ids({ url: ['https://example.com/one', 'https://example.org/three'] })).toEqual([abId, cId].sort());
    expect(await ids({ host: 'example.org' })).toEqual([bcId, cId].sort());
    expect(await ids({ host: 'example.org', path: '/two' })).toEqual([bcId]);
    expect((await client.events({ filter: { label: 'c' } })).events.map((e) => e.messageId).sort()).toEqual(
      [bcId, cId].sort(),
    );
  });

  it('pages with count and cursor; cancels are logged; an unknown filter is a 400', async () => {
    await fresh();
    const { messageId } = await client.publishJSON({ url: 'https://example.com/c', body: {}, delay: '1d' });
    await client.messages.cancel(messageId);
    const first = await client.logs({ count: 2 });
    expect(first.logs.map((l) => l.state)).toEqual(['CANCELLED', 'CANCEL_REQUESTED']);
    const second = await client.logs({ count: 2, cursor: first.cursor });
    expect(second.logs.map((l) => l.state)).toEqual(['CREATED']);
    expect(second.cursor).toBeUndefined();
    expect(await rejection(client.logs({ filter: { lable: 'x' } } as never))).toMatchObject({
      status: 400,
      error: expect.stringContaining('"lable"'),
    });
  });
});

describe('endpoints the stand-in does not offer', () => {
  it('answer 501 naming the endpoint, never a bare 404', async () => {
    await fresh();
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => client.queue({ queueName: 'q' }).upsert({ parallelism: 1 }), /POST \/v2\/queues .*no queues/],
      [
        () => client.queue({ queueName: 'q' }).enqueueJSON({ url: 'https://example.com/', body: {} }),
        /POST \/v2\/enqueue\/q\/https:\/\/example\.com\/ .*no queues/,
      ],
      [() => client.urlGroups.list(), /GET \/v2\/topics .*URL groups/],
      [
        () => client.urlGroups.addEndpoints({ name: 'g', endpoints: [{ url: 'https://example.com/' }] }),
        /POST \/v2\/topics\/g\/endpoints/,
      ],
      [() => client.flowControl.get('fk'), /GET \/v2\/flowControl\/fk .*flow-control/],
      [() => client.flowControl.getGlobalParallelism(), /GET \/v2\/globalParallelism/],
      [() => client.publishJSON({ urlGroup: 'my-group', body: {} }), /URL group/],
      [() => client.batchJSON([{ url: 'https://example.com/', body: {}, queueName: 'q' }]), /batch\[0\]\.queue/],
      [
        () => client.schedules.create({ destination: 'https://example.com/', cron: '* * * * *', queueName: 'q' }),
        /Upstash-Queue-Name/,
      ],
    ];
    for (const [call, pattern] of cases) {
      const { status, error } = await rejection(call());
      expect(status).toBe(501);
      expect(error).toMatch(pattern);
      expect(error).toMatch(/stand-in/);
    }
    expect(broker.messages()).toEqual([]);
    const unknown = await fetch(`${broker.url}/v2/nope`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(unknown.status).toBe(404);
  });
});
