import { Client } from '@upstash/qstash';
import { FinishTurnJobSchema } from '../core/finish-turn-job.js';
import { DeliveryMessageSchema } from '../core/outbox-entry.js';
import { tenantLabel } from './publisher.js';

/**
 * QStash's own dead-letter queue, seen per tenant: deliveries and finish-turn jobs that QStash
 * gave up on. QStash's DLQ is per account, not per tenant: every message the product publishes
 * carries the tenant's label, so the tenant's view asks QStash for that label only, and the
 * (signed, product-written) body must name the tenant too — a second guard, so other tenants'
 * messages are never listed or retried. Every publisher (deliveries, finish-turn jobs, inbound
 * retries) has labelled its messages since before any deployment, so there is no unlabelled
 * message to look for: one labelled scan of at most `maxPages` pages of 100.
 */
export interface QStashDeadLetter {
  dlqId: string;
  messageId: string;
  kind: 'delivery' | 'finish-turn';
  turnId: string;
  url: string;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number | null;
}

function tenantMessage(
  body: string | undefined,
  tenantId: string,
): { kind: QStashDeadLetter['kind']; turnId: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    return null;
  }
  const delivery = DeliveryMessageSchema.safeParse(parsed);
  if (delivery.success)
    return delivery.data.tenantId === tenantId ? { kind: 'delivery', turnId: delivery.data.turnId } : null;
  const job = FinishTurnJobSchema.safeParse(parsed);
  if (job.success)
    return job.data.inbound.tenantId === tenantId ? { kind: 'finish-turn', turnId: job.data.turnId } : null;
  return null;
}

export function qstashClient(config: { qstashUrl: string; qstashToken: string }): Client {
  return new Client({ baseUrl: config.qstashUrl, token: config.qstashToken });
}

export async function listQStashDeadLetters(
  client: Client,
  tenantId: string,
  maxPages = 5,
): Promise<QStashDeadLetter[]> {
  const filter = { label: tenantLabel(tenantId) };
  const found: QStashDeadLetter[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await client.dlq.listMessages({ count: 100, ...(cursor ? { cursor } : {}), filter });
    for (const m of result.messages) {
      const mine = tenantMessage(m.body, tenantId);
      if (!mine) continue;
      found.push({
        dlqId: m.dlqId,
        messageId: m.messageId,
        ...mine,
        url: m.url,
        responseStatus: m.responseStatus ?? null,
        responseBody: m.responseBody?.slice(0, 500) ?? null,
        createdAt: m.createdAt ?? null,
      });
    }
    cursor = result.cursor;
    if (!cursor) break;
  }
  return found;
}

/** Asks QStash to deliver a dead-lettered message again, only if it belongs to the tenant. */
export async function retryQStashDeadLetter(
  client: Client,
  tenantId: string,
  dlqId: string,
): Promise<{ ok: true; messageId: string } | { ok: false }> {
  const { messages } = await client.dlq.listMessages({ dlqIds: [dlqId] });
  const message = messages.find((m) => m.dlqId === dlqId);
  if (!message || !tenantMessage(message.body, tenantId)) return { ok: false };
  const result = await client.dlq.retry(dlqId);
  return { ok: true, messageId: result.responses[0]?.messageId ?? '' };
}
