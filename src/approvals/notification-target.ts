import type { TenantConfig } from '../../core/tenant/tenant-config.js';

/**
 * Where a notification goes, as the outbox entry carries it: the config's URL (a plain endpoint
 * that authenticates our signature), or `sealed` — the tenant's sealed `notificationUrl` secret,
 * opened only at delivery. A Slack incoming-webhook URL is a bearer secret, so it is only ever
 * sealed: never in the config, the turn record or the outbox entry.
 */
export function notificationTarget(
  config: Pick<TenantConfig, 'notifications'>,
): { args: { url: string } | { sealed: true }; shownAs: string; format: 'standard' | 'slack' } | null {
  const target = config.notifications.approvals;
  if (!target) return null;
  return target.url
    ? { args: { url: target.url }, shownAs: new URL(target.url).host, format: target.format }
    : { args: { sealed: true }, shownAs: 'the sealed notification URL', format: target.format };
}
