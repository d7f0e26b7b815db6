import { z } from 'zod';
import { actionKind } from '../../core/actions/index.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { signTerms, type PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import { ConditionalWrites } from '../../core/storage/conditional-writes.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { toolScope } from '../../core/tenant/resource-gates.js';
import { decideApproval, retireUnverifiable, type ApprovalDeps } from './decide-approval.js';
import { pinnedKeys, queuePinnedRow } from '../../core/storage/pinned-rows.js';
import { decidePinned, loadPinned, type LoadedPinned } from './pinned-store.js';
import { verifyTerms } from '../../core/pinned-terms.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { appendAudit } from '../tenants/audit-log.js';

/**
 * "Approve with changes": an approver corrects the arguments of a pending approval. The pinned
 * terms are never edited (nothing can edit them): the original row is REJECTED (no notice to the
 * contact, who gets the corrected action instead), and a NEW approval row is written with the
 * corrected call, signed like every row, naming its author and the row it corrects — then approved
 * through the same decision script as any approval, so it is performed exactly once.
 *
 * Order, for crash safety and races: (1) the corrected call is checked against the action's own
 * argument schema and the tenant's CURRENT config (tool still configured, resource in its scope
 * and not the system's); (2) the original moves pending → rejected in the decision script, which
 * only one decision can win (two approvers, an Approve and a correction: the first wins); (3) the
 * new row is written (SET NX; a second write for its id cannot happen); (4) it is approved. A crash
 * after (2) leaves the original rejected and nothing performed; after (3), a pending corrected row
 * an approver can still decide. Nothing in between can perform the call twice.
 */
/** `POST /v1/tenants/:t/approvals/:id/approve-with-changes`: the corrected arguments (each checked as the tool's own). */
export const ApproveWithChangesBodySchema = z.object({
  args: z.record(z.string(), z.unknown()).meta({
    description:
      'The corrected arguments, as the tool takes them (e.g. {"tag":"vip"}); checked against the tool\'s schema and the current config',
  }),
});

export type CorrectionOutcome =
  | { result: 'approved'; id: string; correctedId: string; args: Record<string, unknown> }
  /** The corrected call is pending elsewhere for this contact: that row owns it, this one performs nothing. */
  | { result: 'superseded'; id: string; correctedId: string }
  | { result: 'invalid'; id: string; problem: string }
  | { result: 'not-found' | 'tampered' | 'expired'; id: string; retired?: boolean }
  | { result: 'already-decided'; id: string; status: string };

/** The corrected action, or why these arguments cannot replace the pinned ones, in plain words. */
export function correctedAction(
  config: TenantConfig,
  original: StagedAction,
  args: unknown,
  newId: string,
): { ok: true; action: StagedAction } | { ok: false; problem: string } {
  const kind = actionKind(original.kind);
  const parsed = kind.parseArgs(args);
  if (!parsed.ok) return { ok: false, problem: `The corrected arguments do not fit this action: ${parsed.problem}` };
  const instance = config.tools.find((t) => t.name === original.tool);
  const declaration = config.manifest[original.tool];
  if (!instance || instance.kind !== original.kind || !declaration || declaration.effect === 'read')
    return {
      ok: false,
      problem: `The tool "${original.tool}" is no longer configured to do this; nothing can be performed through it`,
    };
  const configProblem = kind.check(parsed.value, config);
  if (configProblem)
    return { ok: false, problem: `The corrected call is not allowed by the current setup: ${configProblem}` };
  const resource = kind.resource(parsed.value);
  if (!resource || !toolScope(config, original.tool).includes(resource))
    return { ok: false, problem: `The tool "${original.tool}" does not act on ${resource ?? 'that'}` };
  if (config.handoff.tag && resource === `tag:${config.handoff.tag}`)
    return {
      ok: false,
      problem: `The tag "${config.handoff.tag}" is the handoff tag: only the system sets or removes it`,
    };
  const protectedTag = config.guardrails.actions.protectedTags.find((t) => resource === `tag:${t}`);
  if (protectedTag) return { ok: false, problem: `The tag "${protectedTag}" is protected` };
  if (canonicalJson(parsed.value) === canonicalJson(original.args))
    return { ok: false, problem: 'The corrected arguments are the same as the pinned ones: use Approve instead' };
  return {
    ok: true,
    action: {
      ...original,
      id: `${newId}.a1`,
      args: parsed.value,
      gate: 'approval',
      summary: kind.summary(parsed.value, config),
    },
  };
}

function randomToken(): string {
  return crypto.randomUUID().replace(/-/g, '');
}

export async function approveWithChanges(
  deps: ApprovalDeps & { config: TenantConfig; author: string },
  tenantId: string,
  id: string,
  args: unknown,
): Promise<CorrectionOutcome> {
  const loaded = await loadPinned(deps.session, tenantId, id);
  if (!loaded || loaded.terms.kind !== 'approval') return { result: 'not-found', id };
  if (!(await verifyTerms(loaded.terms, deps.pinSecret))) {
    return { result: 'tampered', id, retired: await retireUnverifiable(deps, loaded) };
  }
  if (loaded.status !== 'pending') return { result: 'already-decided', id, status: loaded.status };
  if (Date.parse(loaded.terms.expiresAt) <= deps.now.getTime()) return { result: 'expired', id };
  const original = loaded.terms.actions[0]!;
  const newId = `ap_${randomToken()}`;
  const corrected = correctedAction(deps.config, original, args, newId);
  if (!corrected.ok) return { result: 'invalid', id, problem: corrected.problem };
  const terms = await correctedTerms(deps, loaded, corrected.action, newId);

  const rejected = await decidePinned(deps.session, loaded, 'rejected', null, deps.now);
  if (rejected === 'tampered') return { result: 'tampered', id };
  if (rejected === 'expired') return { result: 'expired', id };
  if (rejected !== 'ok') return { result: 'already-decided', id, status: rejected };

  // The correction mark is the script's guard: an original is corrected once.
  const correction = pinnedKeys(tenantId).correction(id);
  const w = new ConditionalWrites(correction);
  w.call(
    'SET',
    correction,
    newId,
    'EX',
    Math.max(60, Math.ceil((Date.parse(terms.expiresAt) - deps.now.getTime()) / 1000) + 7 * 24 * 3600),
  );
  queuePinnedRow(w, terms, deps.now.getTime());
  await deps.session.one((r) => r.eval(w.script, w.keys, w.argv));

  const approved = await decideApproval(deps, tenantId, newId, 'approve');
  if (approved.result === 'approved')
    return { result: 'approved', id, correctedId: newId, args: corrected.action.args };
  if (approved.result === 'already-decided' && approved.status === 'superseded')
    return { result: 'superseded', id, correctedId: newId };
  // The new row was written a moment ago: anything else is a race with its expiry.
  return approved.result === 'already-decided'
    ? { result: 'already-decided', id: newId, status: approved.status }
    : { result: approved.result === 'expired' ? 'expired' : 'not-found', id: newId };
}

async function correctedTerms(
  deps: ApprovalDeps & { author: string },
  loaded: LoadedPinned,
  action: StagedAction,
  newId: string,
): Promise<PinnedTerms> {
  const { terms } = loaded;
  return signTerms(
    {
      id: newId,
      kind: 'approval',
      tenantId: terms.tenantId,
      contactId: terms.contactId,
      channel: terms.channel,
      turnId: terms.turnId,
      actions: [action],
      card: `${action.summary} — corrected by ${deps.author} from approval ${terms.id} (${terms.actions[0]!.summary}). For contact ${terms.contactId}.`,
      ...(terms.locale ? { locale: terms.locale } : {}),
      authoredBy: deps.author,
      corrects: terms.id,
      nonce: randomToken(),
      createdAt: deps.now.toISOString(),
      // The contact's wait does not restart: the correction keeps the original's hour.
      expiresAt: terms.expiresAt,
    },
    deps.pinSecret,
  );
}

/** The audit lines of a correction: the original's rejection and the new row's approval, each naming the other. */
export async function auditCorrection(
  session: RedisSession,
  tenantId: string,
  actor: string,
  outcome: Extract<CorrectionOutcome, { correctedId: string }>,
  before: string,
): Promise<void> {
  await appendAudit(session, tenantId, {
    actor,
    action: 'approval.rejected',
    detail: `approval ${outcome.id}: rejected for a correction by ${actor} (pinned ${before}); replaced by ${outcome.correctedId}`,
  });
  await appendAudit(session, tenantId, {
    actor,
    action: outcome.result === 'approved' ? 'approval.corrected' : 'approval.corrected-superseded',
    detail:
      outcome.result === 'approved'
        ? `approval ${outcome.correctedId}: written by ${actor} correcting ${outcome.id}, approved with ${JSON.stringify(outcome.args)}`
        : `approval ${outcome.correctedId}: written by ${actor} correcting ${outcome.id}; the same call waits in another approval, so this one performed nothing`,
  });
}
