import type { TenantConfig } from '../../core/tenant/tenant-config.js';

/** Kept between the response deadline and ManyChat's own limit, for the network. */
export const RESPONSE_MARGIN_MS = 250;

/**
 * When the webhook must answer a turn that started at `startedAt` (performance.now() ms): the
 * one formula for the webhook's wait (handle-inbound.ts) and the hedge timing (turn-loop.ts).
 */
export function responseDeadlineAt(config: Pick<TenantConfig, 'deadlineMs'>, startedAt: number): number {
  return startedAt + config.deadlineMs - RESPONSE_MARGIN_MS;
}
