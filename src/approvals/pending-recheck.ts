import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { actionNotAllowed } from '../../core/tenant/action-allowed.js';

export interface Rechecked {
  /** The pinned actions the tenant's current configuration still allows. */
  allowed: StagedAction[];
  /** Those it no longer allows, each with why (for the approver, the dashboard and the turn log). */
  refused: { action: StagedAction; problem: string }[];
}

/**
 * A pending row's actions against the tenant's configuration as it is at the decision (a Yes, an
 * approval): the terms were pinned under an older configuration, and a tenant who has since
 * removed the tool, dropped the flow, tag, field or choice, protected the tag or raised the gate
 * must not have it performed anyway.
 */
export function recheckPinnedActions(actions: readonly StagedAction[], config: TenantConfig): Rechecked {
  const allowed: StagedAction[] = [];
  const refused: Rechecked['refused'] = [];
  for (const action of actions) {
    const problem = actionNotAllowed(action, config);
    if (problem) refused.push({ action, problem });
    else allowed.push(action);
  }
  return { allowed, refused };
}
