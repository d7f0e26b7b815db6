import { tenantKeys } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TenantSecrets } from '../../core/tenant/tenant-secrets.js';
import type { PageTokenOf } from '../../outbox/messenger-client.js';

/**
 * The page each contact wrote to (`contactPage`, Messenger tenants with several pages): this module
 * owns the key, writing it (`rememberContactPage`) and reading it (`pageTokenFor`); a contact's
 * deletion takes it from `contactPageKeys`.
 */
export function contactPageKeys(tenantId: string): { contactPage: (contactId: string) => string } {
  return { contactPage: tenantKeys(tenantId).contactPage };
}

type PagesConfig = Pick<TenantConfig, 'messenger' | 'tenantId' | 'retentionDays'>;

/**
 * The access token of one of the tenant's pages: its own sealed token (`messengerPageTokens`), or
 * for the first listed page (and a tenant that lists none) the one-page `messengerPageAccessToken`.
 */
export function tokenOfPage(
  secrets: TenantSecrets,
  config: Pick<TenantConfig, 'messenger'> | undefined,
  pageId: string | undefined,
): string | undefined {
  const pages = config?.messenger.pages ?? [];
  if (pageId && secrets.messengerPageTokens?.[pageId]) return secrets.messengerPageTokens[pageId];
  const first = pages[0]?.id;
  if (pageId === undefined || pageId === first || !first) return secrets.messengerPageAccessToken;
  return undefined;
}

/**
 * How a Messenger client of this tenant finds the token to send with. One page (or no config): the
 * one token, no lookup. Several pages: the page the contact last wrote to (`contactPage`, written
 * by every message's turn), read per call — a PSID is page-scoped, so its page never changes. A
 * contact with no page on record (it wrote before the tenant listed a second page) is taken to be
 * the first page's; a wrong guess is refused by Meta ("No matching user"), it reaches nobody else.
 * `pinned`: the page is known already (the turn's own inbound): no lookup.
 */
export function pageTokenFor(
  session: () => RedisSession,
  secrets: TenantSecrets,
  config: PagesConfig | undefined,
  pinned?: string,
): string | PageTokenOf | undefined {
  const pages = config?.messenger.pages ?? [];
  if (pinned) return tokenOfPage(secrets, config, pinned);
  if (pages.length <= 1) return tokenOfPage(secrets, config, pages[0]?.id);
  const tenantId = config!.tenantId;
  return async (psid) => {
    const stored = await session().one((r) => r.get(tenantKeys(tenantId).contactPage(psid)));
    const pageId = typeof stored === 'string' && stored.startsWith('page:') ? stored.slice(5) : pages[0]!.id;
    const token = tokenOfPage(secrets, config, pageId);
    return token ? { token } : { missing: `no page access token for page ${pageId} (messengerPageTokens)` };
  };
}

/**
 * Records the page a contact wrote to (tenants with several pages only; one page needs no record),
 * kept as long as the contact's words are (prefixed: a bare digit string would come back from the
 * client as a number, and a 30-digit id would lose digits). Written before the turn's claim, so every reply the turn
 * or a later answer queues finds it.
 */
export async function rememberContactPage(
  session: RedisSession,
  config: PagesConfig,
  contactId: string,
  pageId: string | undefined,
): Promise<void> {
  if (!pageId || config.messenger.pages.length <= 1) return;
  await session.one((r) =>
    r.set(tenantKeys(config.tenantId).contactPage(contactId), `page:${pageId}`, {
      ex: config.retentionDays * 24 * 3600,
    }),
  );
}
