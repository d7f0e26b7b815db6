import { afterEach, describe, expect, it } from 'vitest';
import { compileRetryDelay } from '../dev/qstash-broker/retry-delay.js';
import { INBOUND_RETRY_DELAY_SECONDS, qstashInboundRetries } from './inbound-retry-publisher.js';

/**
 * A message kept through a Redis outage must still be run when the outage ends: QStash's attempts
 * (the first after the publish delay, then one per retry, spaced by the Upstash-Retry-Delay the
 * publisher sends) must reach past a 10-minute outage before the message is dead-lettered.
 * What is checked is what goes on the wire, evaluated the way QStash (and the local broker) does.
 */
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

async function publishedHeaders(unverified?: { secretHmac: string }): Promise<Headers> {
  let seen: Headers | null = null;
  globalThis.fetch = async (input, init) => {
    seen = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    return new Response(JSON.stringify({ messageId: 'msg_1' }), { headers: { 'content-type': 'application/json' } });
  };
  await qstashInboundRetries({
    qstashUrl: 'http://qstash.test',
    qstashToken: 't',
    publicUrl: 'https://agent.test',
  }).publishInboundRetry({
    inbound: {
      tenantId: 'studio',
      channel: 'manychat',
      contactId: '1',
      messageKey: 'k:1',
      text: 'hi',
      contact: { fields: {} },
      receivedAt: new Date().toISOString(),
    },
    ...(unverified ? { unverified } : {}),
  });
  if (!seen) throw new Error('nothing was published');
  return seen;
}

describe('inbound retry schedule', () => {
  it('outlasts a 10-minute outage within five retries, and no gap between attempts exceeds ten minutes', async () => {
    const headers = await publishedHeaders();
    const retries = Number(headers.get('upstash-retries'));
    const expression = headers.get('upstash-retry-delay');
    expect(expression, 'an explicit retry delay, not the platform default').toBeTruthy();
    expect(retries).toBeLessThanOrEqual(5);
    const delay = compileRetryDelay(expression!);
    const attempts = [INBOUND_RETRY_DELAY_SECONDS * 1000];
    for (let retried = 0; retried < retries; retried++) attempts.push(attempts.at(-1)! + delay(retried));
    expect(attempts.at(-1)!).toBeGreaterThan(10 * 60_000);
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10 * 60_000);
  });

  it('is deduplicated by the delivery and labelled with its tenant', async () => {
    const headers = await publishedHeaders();
    expect(headers.get('upstash-deduplication-id')).toMatch(/^inbound-studio-/);
    expect(headers.get('upstash-label')).toContain('studio');
  });

  it('keeps an unauthenticated copy apart from the real one: a forged secret cannot take its place in the dedup window', async () => {
    const plain = (await publishedHeaders()).get('upstash-deduplication-id');
    const right = (await publishedHeaders({ secretHmac: 'a'.repeat(64) })).get('upstash-deduplication-id');
    const forged = (await publishedHeaders({ secretHmac: 'b'.repeat(64) })).get('upstash-deduplication-id');
    expect(right).toMatch(/^inbound-studio-/);
    expect(new Set([plain, right, forged]).size).toBe(3);
    // A ManyChat retry of the same request (same secret) is still one job.
    expect((await publishedHeaders({ secretHmac: 'a'.repeat(64) })).get('upstash-deduplication-id')).toBe(right);
  });
});
