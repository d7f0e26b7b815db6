import { Hono } from 'hono';
import { jsonError } from '../http/errors.js';
import { endHandoff } from '../tenants/end-handoff.js';
import type { LoadedTenant, Services, TenantContext } from '../http/app-context.js';
import { channelApisFor } from '../tenants/channel-apis.js';
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
/**
 * A Messenger tenant whose handoffs pass the thread (`messenger.handoverAppId`): the thread is taken
 * back (`take_thread_control`; our app is the page's Primary Receiver), so the bot receives the
 * contact's messages again rather than `standby`. Called directly, not through the outbox: the
 * admin is waiting for the answer, and a failure is told to them (it changes nothing stored).
 */
async function takeThreadBack(
  services: Services,
  tenant: LoadedTenant,
  contactId: string,
): Promise<'taken' | { failed: string } | null> {
  if (!tenant.config.messenger.handoverAppId || !tenant.config.messenger.pages.length || !/^\d{1,30}$/.test(contactId))
    return null;
  const messenger = channelApisFor(services, tenant.secrets, tenant.config).messenger;
  if (!messenger) return { failed: 'the tenant has no Messenger page access token' };
  const result = await messenger.takeThreadControl(contactId, 'released by the tenant');
  return result.ok ? 'taken' : { failed: result.kind === 'timeout' ? 'no answer from the Graph API' : result.message };
}

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
