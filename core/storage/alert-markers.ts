import { tenantKeys } from './keys.js';

/**
 * The alert markers: an alert's "already told" key (`alertSent(item)`, SET NX with a TTL): a dead
 * letter, an outage of the ManyChat key. At most one alert an item, however often its failure is
 * seen again. Only ever written or deleted inside another structure's atomic step — the alert's
 * entry is committed with its marker (src/approvals/failure-alerts.ts), a delivery that saw the
 * key work clears the key-outage marker in its close (outbox/deliver-entry.ts) — so both take the
 * key from here.
 */
export function alertMarkerKeys(tenantId: string): { marker: (itemId: string) => string } {
  return { marker: tenantKeys(tenantId).alertSent };
}
