import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@upstash/qstash';
import { startQStashBroker, type QStashBroker } from '../qstash-broker.js';

/** Test support for the broker's tests: a fresh broker with a real client, and a scripted destination. */

export const TEST_TOKEN = 'test-token-filters';
export const TEST_KEYS = { currentSigningKey: 'sig_currentTestKeyAAA', nextSigningKey: 'sig_nextTestKeyBBB' };

export async function freshBroker(): Promise<{ broker: QStashBroker; client: Client }> {
  const broker = await startQStashBroker({ token: TEST_TOKEN, ...TEST_KEYS, retryBaseMs: 10, maxRetryDelayMs: 50 });
  return { broker, client: new Client({ baseUrl: broker.url, token: TEST_TOKEN, retry: false }) };
}

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers every request with the status set for its path (default 200) and records it. */
export async function startDestination(): Promise<{
  url(path: string, status?: number): string;
  deliveries(path: string): Delivery[];
  close(): Promise<void>;
}> {
  const statuses = new Map<string, number>();
  const seen: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.get(path) ?? 200).end(`answer for ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url(path, status) {
      if (status !== undefined) statuses.set(path, status);
      return base + path;
    },
    deliveries: (path) => seen.filter((d) => d.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function until<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
