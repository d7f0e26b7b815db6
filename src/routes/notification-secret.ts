import type { Hono } from 'hono';
import type { TenantContext } from '../http/app-context.js';
import { tenantWebhookSecret } from '../../outbox/webhook-client.js';

/**
 * `GET /v1/tenants/:tenant/notifications/secret` (admin) — the `whsec_…` secret the tenant's
 * endpoint verifies approval notifications with (Standard Webhooks). Derived, not stored: the same
 * on every call until the Worker's SESSION_SECRET changes.
 */
export function registerNotificationSecretRoute(app: Hono<TenantContext>): void {
  app.get('/:tenant/notifications/secret', async (c) => {
    const secret = await tenantWebhookSecret(c.get('services').env.SESSION_SECRET, c.req.param('tenant'));
    c.header('cache-control', 'no-store');
    return c.json({
      scheme: 'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256>)',
      secret,
    });
  });
}
