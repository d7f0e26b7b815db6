import { Client } from '@upstash/qstash';
import { FinishTurnJobSchema } from '../core/finish-turn-job.js';
import { InboundRetryJobSchema } from '../core/inbound-retry-job.js';
import { DeliveryMessageSchema } from '../core/outbox-entry.js';
import { tenantLabel } from './publisher.js';

/**
 * QStash's own dead-letter queue, seen per tenant: deliveries, finish-turn jobs and inbound
 * retries (a contact's message kept through a Redis outage) that QStash gave up on. An inbound
 * retry has no turn yet: it is listed by its contact and message key, and re-driving it runs
 * the message once (its claim joins any turn that ran it meanwhile). QStash's DLQ is per account, not per tenant: every message the product publishes
 * carries the tenant's label, so the tenant's view asks QStash for that label only, and the
 * (signed, product-written) body must name the tenant too — a second guard, so other tenants'
 * messages are never listed or retried. Every publisher (deliveries, finish-turn jobs, inbound
 * retries) has labelled its messages since before any deployment, so there is no unlabelled
 * message to look for: one labelled scan of at most `maxPages` pages of 100.
 */
export interface QStashDeadLetter {
  dlqId: string;
  messageId: string;
  kind: 'delivery' | 'finish-turn' | 'inbound';
  /** The turn it belongs to; '' for an inbound retry (its turn starts when it runs). */
  turnId: string;
  /** An inbound retry's contact and message key (what the tenant can find the message by). */
  contactId?: string;
  messageKey?: string;
  url: string;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number | null;
}

function tenantMessage(
  body: string | undefined,
  tenantId: string,
): Pick<QStashDeadLetter, 'kind' | 'turnId' | 'contactId' | 'messageKey'> | null {
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
  // After the finish-turn job: its body ({turnId, inbound}) would also read as an inbound retry.
  const retry = InboundRetryJobSchema.safeParse(parsed);
  if (retry.success) {
    const { inbound } = retry.data;
    return inbound.tenantId === tenantId
      ? { kind: 'inbound', turnId: '', contactId: inbound.contactId, messageKey: inbound.messageKey }
      : null;
  }
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

/**
 * Re-drives every inbound retry of the tenant that QStash gave up on (after an outage longer than
 * its retry schedule): each is delivered again and runs once. Returns what was retried.
 */
export async function retryQStashInboundDeadLetters(
  client: Client,
  tenantId: string,
): Promise<{ retried: { dlqId: string; messageId: string }[]; failed: { dlqId: string; error: string }[] }> {
  const inbound = (await listQStashDeadLetters(client, tenantId)).filter((d) => d.kind === 'inbound');
  const retried: { dlqId: string; messageId: string }[] = [];
  const failed: { dlqId: string; error: string }[] = [];
  for (const dead of inbound) {
    try {
      const result = await client.dlq.retry(dead.dlqId);
      retried.push({ dlqId: dead.dlqId, messageId: result.responses[0]?.messageId ?? '' });
    } catch (err) {
      failed.push({ dlqId: dead.dlqId, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { retried, failed };
}
