import type { ChannelApis } from '../../core/actions/channel-api.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import { createManyChatClient, DEFAULT_MANYCHAT_TIMEOUT_MS } from '../../outbox/manychat-client.js';
import { createMessengerClient, DEFAULT_MESSENGER_TIMEOUT_MS } from '../../outbox/messenger-client.js';
import type { Services } from '../http/app-context.js';
import { pageTokenFor } from './page-tokens.js';
import { createWebhookClient, tenantWebhookSecrets } from '../../outbox/webhook-client.js';
import { sessionSecrets } from '../env.js';

/**
 * The clients a delivery of this tenant's actions uses, with the tenant's own keys. Messenger's
 * only when the tenant has a page access token, sent with the token of the contact's page
 * (page-tokens.ts); it judges the 24-hour window with the tenant's
 * allowed message tags (none when the config is not given: fail closed). The tenant's signed
 * webhook (approval notifications) when the config is given.
 */
export function channelApisFor(
  services: Services,
  secrets: TenantSecrets,
  config?: Pick<TenantConfig, 'guardrails' | 'tenantId' | 'messenger' | 'retentionDays'>,
  /** Messenger: the page the contact wrote to, when the caller knows it (no lookup). */
  pageId?: string,
): ChannelApis {
  const pageAccessToken = pageTokenFor(() => services.redis(), secrets, config, pageId);
  return {
    manychat: createManyChatClient({
      baseUrl: services.env.MANYCHAT_API_URL,
      apiKey: secrets.manychatApiKey,
      fetch: services.fetch,
      timeoutMs: DEFAULT_MANYCHAT_TIMEOUT_MS,
    }),
    ...(pageAccessToken
      ? {
          messenger: createMessengerClient({
            graphUrl: services.env.MESSENGER_GRAPH_URL,
            pageAccessToken,
            fetch: services.fetch,
            timeoutMs: DEFAULT_MESSENGER_TIMEOUT_MS,
            allowedMessageTags: config?.guardrails.messagingWindow.allowedMessageTags ?? [],
          }),
        }
      : {}),
    ...(config
      ? {
          webhook: createWebhookClient({
            secret: () => tenantWebhookSecrets(sessionSecrets(services.env), config.tenantId),
            fetch: services.fetch,
            sealedUrl: secrets.notificationUrl,
          }),
        }
      : {}),
  };
}
