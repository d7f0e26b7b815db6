import type { StagedAction } from '../staged-action.js';
import type { TenantConfig } from './tenant-config.js';
import { actionKind } from '../actions/index.js';
import { effectiveGate, strongerGate, toolScope } from './resource-gates.js';

/**
 * Whether a model-staged action is allowed by a tenant's configuration as it is NOW, or why not.
 * The action policy asks it after the loop; the decision on a pending row (a Yes, an approval)
 * and the delivery of a decided row ask it again, so pending work follows the tenant's later
 * changes: a tool no longer declared, a flow, tag or field no longer configured (or a choice no
 * longer offered), a tag now protected, or a gate now stronger than the one the action waited
 * for, refuses the action. The words are a person's: they reach the dashboard and the approver.
 *
 * - Provenance: the action names a configured tool, declared in the manifest as a write, of the
 *   matching kind, acting on a resource in its scope, with a gate at least as strong as the
 *   one its resource requires now.
 * - Arguments: the kind's own check (configured flow, tag, field, value among the choices…), and
 *   the handoff tag and protected tags are the system's.
 */
export function actionNotAllowed(action: StagedAction, config: TenantConfig): string | null {
  const problems = [provenanceProblem(action, config), argumentProblem(action, config)].filter(Boolean);
  return problems.length ? problems.join('; ') : null;
}

function provenanceProblem(action: StagedAction, config: TenantConfig): string | null {
  if (action.tool.startsWith('system:')) return `${action.summary}: a system action cannot be staged by the model`;
  const instance = config.tools.find((t) => t.name === action.tool);
  if (!instance) return `${action.summary}: tool "${action.tool}" is not configured`;
  const declaration = config.manifest[action.tool];
  if (!declaration || declaration.effect === 'read')
    return `${action.summary}: tool "${action.tool}" is not declared as a write tool`;
  if (!actionKind(action.kind).stageable) return `${action.summary}: no configured tool stages ${action.kind} actions`;
  if (instance.kind !== action.kind)
    return `${action.summary}: tool "${action.tool}" is a ${instance.kind} tool, not ${action.kind}`;
  const resource = actionKind(action.kind).resource(action.args);
  // What a tool stages always names something the tenant configured (a flow, a prepared message,
  // a tag, a field); a send_content with no prepared message is the system's, never the model's.
  if (!resource)
    return `${action.summary}: a ${action.kind} staged by tool "${action.tool}" names nothing the tenant configured`;
  if (!toolScope(config, action.tool).includes(resource))
    return `${action.summary}: tool "${action.tool}" does not act on ${resource}`;
  // The gate binds to the resource: the strongest gate any tool puts on it, whichever tool staged it.
  const gate = effectiveGate(config, action.tool, resource);
  // A stronger gate than the config's is the runtime asking the contact (request-provenance.ts), never weaker.
  if (strongerGate(action.gate, gate) !== action.gate)
    return `${action.summary}: staged with gate "${action.gate}" but ${resource} requires "${gate}"`;
  return null;
}

function argumentProblem(action: StagedAction, config: TenantConfig): string | null {
  const kind = actionKind(action.kind);
  const problem = kind.check(action.args, config);
  if (problem) return problem;
  const resource = kind.resource(action.args);
  if (config.handoff.tag && resource === `tag:${config.handoff.tag}`)
    return `tag "${config.handoff.tag}" is the handoff tag: only the system hands off (the model sets escalate)`;
  const protectedTag = config.guardrails.actions.protectedTags.find((t) => resource === `tag:${t}`);
  if (protectedTag) return `tag "${protectedTag}" is protected: the model may not add or remove it`;
  return null;
}
