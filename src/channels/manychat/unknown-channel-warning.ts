import type { TenantConfig } from '../../../core/tenant/tenant-config.js';

/**
 * The log line that says a tenant's ManyChat deliveries do not tell their channel (no "channel"
 * in the request template, no channel fields in Full Contact Data), so replies go out in the
 * Facebook format. It is a fact about the tenant's setup, not about one message: written once per
 * tenant config object the isolate holds (src/tenants/tenant-cache.ts keeps one per config
 * revision), not on every turn, where it cost a console write per request. A saved config is a
 * new object, so a tenant that changes its config is told again.
 */
const warned = new WeakSet<TenantConfig>();

/** Logs the warning unless this config object was warned about already; true when it logged. */
export function warnUnknownChannel(config: TenantConfig, log: (line: string) => void = console.warn): boolean {
  if (warned.has(config)) return false;
  warned.add(config);
  log(
    `ManyChat webhook for tenant ${config.tenantId}: the contact's channel cannot be told (no "channel" in the request template, no channel fields in Full Contact Data); answered in the Facebook format (logged once per config in this isolate)`,
  );
  return true;
}
