import { deepMerge, type CaseTurn } from './case-format.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { tenantView } from './run-messenger-turn.js';
import { emptyObservation, type TurnObservation } from './turn-observation.js';

/**
 * A config change, made the way a tenant makes it: GET the tenant's config through the tenant API,
 * deep-merge the turn's overrides over it, PUT it back (admin secret). The case world's copy of the
 * config follows the saved one, so later turns' expectations read the tenant as it now is.
 */
export async function runReconfigureTurn(
  env: EvalEnvironment,
  caseWorld: CaseWorld,
  turn: CaseTurn,
  index: number,
): Promise<TurnObservation> {
  const world = tenantView(caseWorld, turn.tenant);
  const base = emptyObservation(turn, index, world.contacts.get(turn.contact)!, 'tenant-decision');
  const url = `${env.workerUrl}/v1/tenants/${world.tenantId}/config`;
  const headers = { authorization: `Bearer ${world.adminSecret}` };
  const current = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  if (current.status !== 200)
    return { ...base, failures: [`GET config answered ${current.status}: ${(await current.text()).slice(0, 200)}`] };
  const merged = deepMerge<Record<string, unknown>>(
    (await current.json()) as Record<string, unknown>,
    turn.reconfigure,
  );
  const started = performance.now();
  const res = await fetch(url, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(merged),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  const expected = turn.expect.status ?? 200;
  const failures =
    res.status === expected
      ? []
      : [`the config save answered ${res.status} (expected ${expected}): ${text.slice(0, 300)}`];
  if (res.status === 200) {
    const saved = (JSON.parse(text) as { config: TenantConfig }).config;
    caseWorld.tenants.set(turn.tenant, { ...caseWorld.tenants.get(turn.tenant)!, config: saved });
    if (world.tenantId === caseWorld.tenantId) caseWorld.config = saved;
  }
  return {
    ...base,
    deliveries: [{ status: res.status, ms, turnId: null, duplicateOf: null, deferred: false, replyText: null }],
    // A refused save's answer (its `details` name each problem) is what `replyContains` reads here.
    replyText: res.status === 200 ? '' : text,
    latencyMs: ms,
    failures,
  };
}
