import type { LoadedTenant, Services } from '../http/app-context.js';
import { channelApisFor } from './channel-apis.js';

/**
 * A Messenger tenant whose handoffs pass the thread (`messenger.handoverAppId`): releasing a
 * contact takes the thread back (`take_thread_control`; our app is the page's Primary Receiver),
 * so the bot receives the contact's messages again rather than `standby`. Called directly, not
 * through the outbox: the person releasing is waiting for the answer, and a failure is told to
 * them (it changes nothing stored). Null when the tenant's handoffs do not pass the thread.
 * Used by the tenant API's release route and the dashboard's release button alike.
 */
export async function takeThreadBack(
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
