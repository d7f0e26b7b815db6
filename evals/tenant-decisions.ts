import type { CaseWorld, EvalEnvironment } from './environment.js';
import type { DeliveryView } from './observed.js';
import { readRow } from './product-state.js';
import type { CaseState } from './turn-observation.js';

/**
 * A tenant's decisions, made as a tenant makes them: through the Worker's tenant API
 * (README "HTTP API") with the tenant's admin secret as `Authorization: Bearer`.
 */

export interface ApprovalListing {
  id: string;
  status: string;
  contactId: string;
  createdAt: string;
  tool: string;
  args: string;
}

function api(env: EvalEnvironment, world: CaseWorld, path: string): { url: string; headers: Record<string, string> } {
  return {
    url: `${env.workerUrl}/v1/tenants/${world.tenantId}${path}`,
    headers: { authorization: `Bearer ${world.adminSecret}` },
  };
}

/** GET …/approvals: the tenant's approval queue. */
export async function listApprovals(env: EvalEnvironment, world: CaseWorld): Promise<ApprovalListing[] | string> {
  const { url, headers } = api(env, world, '/approvals');
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  if (res.status !== 200)
    return `GET /v1/tenants/${world.tenantId}/approvals answered ${res.status}: ${text.slice(0, 200)}`;
  return (JSON.parse(text) as { approvals: ApprovalListing[] }).approvals;
}

/**
 * The row a decision turn acts on: `true` → the oldest approval still pending in the tenant's
 * queue (GET …/approvals); a name → the row an earlier turn named with `pending[].as`, whatever its
 * status (a decided approval leaves the queue, and a second decision on it is what some cases test).
 */
export async function resolveTarget(
  env: EvalEnvironment,
  world: CaseWorld,
  state: CaseState,
  target: true | string,
): Promise<{ id: string; contactId: string } | string> {
  if (target !== true) {
    const id = state.namedRows.get(target);
    if (!id) return `no earlier turn named a row "${target}" (pending[].as)`;
    const row = await readRow(env, world.tenantId, id);
    return row ? { id, contactId: row.terms.contactId } : `row "${target}" (${id}) is not in Redis`;
  }
  const listed = await listApprovals(env, world);
  if (typeof listed === 'string') return listed;
  const first = listed
    .filter((a) => a.status === 'pending')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))[0];
  return first
    ? { id: first.id, contactId: first.contactId }
    : `no pending approval in the tenant's queue (it holds ${listed.length}: ${listed.map((a) => `${a.id} ${a.status}`).join(', ') || 'none'})`;
}

/** POST …/approvals/:id/approve|reject. */
export async function postDecision(
  env: EvalEnvironment,
  world: CaseWorld,
  id: string,
  action: 'approve' | 'reject',
): Promise<DeliveryView> {
  const { url, headers } = api(env, world, `/approvals/${id}/${action}`);
  const started = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    return {
      status: res.status,
      ms: performance.now() - started,
      turnId: null,
      duplicateOf: null,
      deferred: false,
      replyText: null,
      ...(res.status >= 400 ? { error: text.slice(0, 300) } : {}),
    };
  } catch (err) {
    return {
      status: 0,
      ms: performance.now() - started,
      turnId: null,
      duplicateOf: null,
      deferred: false,
      replyText: null,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    };
  }
}
