import type { Hono } from 'hono';
import type { TenantContext } from '../http/app-context.js';
import { tenantWebhookSecrets } from '../../outbox/webhook-client.js';
import { sessionSecrets } from '../env.js';

/**
 * `GET /v1/tenants/:tenant/notifications/secret` (admin) — the `whsec_…` secret the tenant's
 * endpoint verifies approval notifications with (Standard Webhooks). Derived, not stored: the same
 * on every call until the Worker's SESSION_SECRET changes. During a rotation (SESSION_SECRET_PREVIOUS
 * set) each notification carries a signature under both, and the old one is shown as
 * `previousSecret`, so the endpoint keeps verifying while the tenant switches to `secret`.
 */
export function registerNotificationSecretRoute(app: Hono<TenantContext>): void {
  app.get('/:tenant/notifications/secret', async (c) => {
    const [secret, previousSecret] = await tenantWebhookSecrets(
      sessionSecrets(c.get('services').env),
      c.req.param('tenant'),
    );
    c.header('cache-control', 'no-store');
    return c.json({
      scheme: 'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256>)',
      secret,
      ...(previousSecret
        ? {
            previousSecret,
            rotation:
              'SESSION_SECRET is being rotated: notifications are signed with both secrets (space-separated in webhook-signature) until the previous one is removed; switch your endpoint to secret.',
          }
        : {}),
    });
  });
}
