import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got: the path names the tenant (`/<tenantId>`), the body exactly as sent. */
export interface ReceivedNotification {
  seq: number;
  tenantId: string;
  type: string;
  body: string;
  webhookId: string | null;
}

export interface NotificationReceiver {
  /** The URL a tenant's `notifications.approvals` points at. */
  urlFor(tenantId: string): string;
  received(tenantId: string, since?: number): ReceivedNotification[];
  /** The last seq so far (a turn's cursor). */
  cursor(): number;
  close(): Promise<void>;
}

/**
 * The tenants' notification channel in an eval run: a local HTTP server that answers 200 and keeps
 * every POST (the Worker's outbox delivers `notify_webhook` to it like to any tenant endpoint), so
 * a case can check that an escalation told the team. The event's type is the body's `type` (a
 * Slack body carries it as `event.type`).
 */
export async function startNotificationReceiver(): Promise<NotificationReceiver> {
  const got: ReceivedNotification[] = [];
  let seq = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let type = '(not JSON)';
      try {
        const parsed = JSON.parse(body) as { type?: unknown; event?: { type?: unknown } };
        type = String(parsed.type ?? parsed.event?.type ?? '(no type)');
      } catch {
        // kept with its raw body: a case naming a type then fails and shows it
      }
      if (req.method === 'POST')
        got.push({
          seq: ++seq,
          tenantId: decodeURIComponent((req.url ?? '/').slice(1).split('?')[0] ?? ''),
          type,
          body,
          webhookId: typeof req.headers['webhook-id'] === 'string' ? req.headers['webhook-id'] : null,
        });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    urlFor: (tenantId) => `http://127.0.0.1:${port}/${encodeURIComponent(tenantId)}`,
    received: (tenantId, since = 0) => got.filter((n) => n.tenantId === tenantId && n.seq > since),
    cursor: () => seq,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
