import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@upstash/qstash';
import type { QStashBroker } from './qstash-broker.js';
import { freshBroker, until } from './qstash-broker/testing.js';

/** Flow control (`publish({ flowControl })`): parallelism and rate per key, through the real client. */

/** A destination that holds each request for 150 ms and records how many were in flight at once, per path. */
let server: Server;
let base = '';
const inFlight = new Map<string, number>();
const maxInFlight = new Map<string, number>();
const starts = new Map<string, number[]>();
const done = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    req.resume();
    inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
    maxInFlight.set(path, Math.max(maxInFlight.get(path) ?? 0, inFlight.get(path)!));
    starts.set(path, [...(starts.get(path) ?? []), Date.now()]);
    setTimeout(() => {
      inFlight.set(path, inFlight.get(path)! - 1);
      done.set(path, (done.get(path) ?? 0) + 1);
      res.writeHead(200).end('ok');
    }, 150);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

let broker: QStashBroker;
let client: Client;
afterEach(async () => {
  await broker?.close();
});

async function publishMany(
  path: string,
  n: number,
  flowControl?: { key: string; parallelism?: number; rate?: number; period?: `${bigint}s` },
): Promise<string[]> {
  // One batch, so every message is due at the same moment and only flow control can hold one back.
  const batch = Array.from({ length: n }, (_, i) => ({
    url: base + path,
    body: { i },
    ...(flowControl ? { flowControl: flowControl as never } : {}),
  }));
  const ids = (await client.batchJSON(batch)).map((r) => (r as { messageId: string }).messageId);
  await until(() => (done.get(path) ?? 0) >= n, `${n} deliveries to ${path}`, 10_000);
  // The destination answered; the broker records an attempt once it has read that answer.
  await until(
    () => ids.every((id) => broker.message(id)?.state === 'DELIVERED'),
    `${n} messages recorded as delivered`,
    10_000,
  );
  return ids;
}

describe('flow control', () => {
  it('parallelism: 1 delivers one message of the key at a time (without it they overlap)', async () => {
    ({ broker, client } = await freshBroker());
    await publishMany('/free', 4);
    expect(maxInFlight.get('/free')).toBeGreaterThan(1);
    await publishMany('/serial', 4, { key: 'serial-key', parallelism: 1 });
    expect(maxInFlight.get('/serial')).toBe(1);
    await publishMany('/two', 5, { key: 'two-key', parallelism: 2 });
    expect(maxInFlight.get('/two')).toBeLessThanOrEqual(2);
  });

  it('rate: 1 per 1s period starts the second attempt of the key no sooner than a second after the first', async () => {
    ({ broker, client } = await freshBroker());
    const ids = await publishMany('/rated', 2, { key: 'rated-key', rate: 1, period: '1s' });
    // When the broker started each attempt (not when it arrived: connection set-up varies under load).
    const [first, second] = ids.map((id) => broker.message(id)!.attempts[0]!.at);
    expect(second! - first!).toBeGreaterThanOrEqual(990);
    expect(starts.get('/rated')).toHaveLength(2);
  });
});
