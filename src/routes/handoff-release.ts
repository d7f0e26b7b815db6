import { Hono } from 'hono';
import { jsonError } from '../http/errors.js';
import type { TenantContext } from '../http/app-context.js';
import { takeThreadBack } from '../tenants/take-thread-back.js';
import { endHandoff } from '../tenants/end-handoff.js';
import { requireAdminSecret } from '../http/middleware/admin-auth.js';
import { assertSafeId } from '../../core/storage/keys.js';

/**
 * `POST /v1/tenants/:tenant/contacts/:contact/release` — ends a contact's handoff early: deletes
 * the silence window `t:{tenant}:handoff:{contact}` the escalation set, so the agent answers the
 * contact's next message. Authenticated like the tenant API (the tenant's secret in
 * the tenant admin secret, constant-time). It does not remove the handoff tag at ManyChat: that
 * tag is the tenant's live-chat marker and their team clears it where they work.
 *
 * Answers `{ tenantId, contactId, released, threadControl? }`; `released` is false when the contact
 * was not in a handoff (releasing is idempotent); `threadControl` says whether a Messenger thread
 * handed to the inbox was taken back.
 */
export function handoffReleaseRoutes() {
  const app = new Hono<TenantContext>();
  app.post('/:tenant/contacts/:contact/release', requireAdminSecret(), async (c) => {
    const tenantId = c.req.param('tenant');
    const contactId = c.req.param('contact');
    try {
      assertSafeId('contact id', contactId);
    } catch {
      return jsonError(c, 400, 'contact id has characters that cannot be part of a key');
    }
    const released = await endHandoff(c.get('session'), tenantId, contactId, 'admin');
    const threadControl = await takeThreadBack(c.get('services'), c.get('tenant'), contactId);
    return c.json({ tenantId, contactId, released, ...(threadControl ? { threadControl } : {}) });
  });
  return app;
}
