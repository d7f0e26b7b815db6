import type { ChannelApis } from '../../core/actions/channel-api.js';
import type { TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import { createManyChatClient, DEFAULT_MANYCHAT_TIMEOUT_MS } from '../../outbox/manychat-client.js';
import type { Services } from '../http/app-context.js';
import { createWebhookClient, tenantWebhookSecret } from '../../outbox/webhook-client.js';

/** The clients a delivery of this tenant's actions uses, with the tenant's own keys (and, given its id, its signed webhook). */
export function channelApisFor(services: Services, secrets: TenantSecrets, tenantId?: string): ChannelApis {
  return {
    manychat: createManyChatClient({ baseUrl: services.env.MANYCHAT_API_URL, apiKey: secrets.manychatApiKey, fetch: services.fetch, timeoutMs: DEFAULT_MANYCHAT_TIMEOUT_MS }),
    ...(tenantId ? { webhook: createWebhookClient({ secret: () => tenantWebhookSecret(services.env.SESSION_SECRET, tenantId), fetch: services.fetch }) } : {}),
  };
}
