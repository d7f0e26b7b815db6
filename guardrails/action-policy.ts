import type { StagedAction } from '../core/staged-action.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { actionKind } from '../core/actions/index.js';
import { canonicalJson } from '../core/canonical-json.js';
import { effectiveGate, strongerGate, toolScope } from '../core/tenant/resource-gates.js';
import { pass, veto, type Guardrail } from './guardrail.js';
import { checkMessagingWindow } from './messaging-window.js';

/**
 * Action policy: every staged action is checked again, after the loop, against what the tenant
 * configured, whatever the tool did at staging (defence in depth: a tool bug or a config edit
 * during the turn cannot let an action through). A violation vetoes the turn.
 *
 * - Provenance: the action names a configured tool, declared in the manifest as a write, of the
 *   matching kind, with the gate its declaration implies (a confirm-once tool cannot stage an
 *   ungated action). `system:` actions are the system's; the model cannot stage them.
 * - Allow-lists: a flow is configured and its namespace is the configured one; a tag is
 *   configured and is neither the handoff tag nor in `protectedTags` (only the system hands
 *   off; the model asks for a human through the typed `escalate` field); a field is configured
 *   and its value passes the field's type and choices; a send_content is one of the tenant's
 *   prepared messages with its configured text; media in a send_content come only from
 *   `mediaHosts` over https.
 * - Caps per turn: at most `maxActionsPerTurn` actions and `maxFlowsPerTurn` flows. ManyChat's
 *   100 sendFlow per contact per hour is not counted here (that would be a Redis round trip in
 *   the turn): the rate limit caps a contact's turns per hour, and the settings refuse
 *   `contactPerHour × maxFlowsPerTurn > 100`, so the cap holds by construction. It is an upper
 *   bound (duplicates and vetoed turns use up turns without sending), and Upstash's sliding
 *   window is an approximation of a true sliding hour, hence the default 45 × 2 = 90.
 * - No contradictions: a tag added and removed, or a field set to two values, in one turn.
 * - The 24-hour window for sends (messaging-window.ts).
 */
export const actionPolicyGuardrail: Guardrail = {
  name: 'action-policy',
  check({ staged, config, inbound }) {
    if (!staged.length) return pass('nothing staged');
    const settings = config.guardrails;
    const problems: string[] = [];
    if (staged.length > settings.actions.maxActionsPerTurn)
      problems.push(`${staged.length} actions staged; at most ${settings.actions.maxActionsPerTurn} a turn`);
    const flows = staged.filter((a) => a.kind === 'send_flow').length;
    if (flows > settings.actions.maxFlowsPerTurn)
      problems.push(`${flows} flows staged; at most ${settings.actions.maxFlowsPerTurn} a turn`);
    for (const action of staged) {
      for (const problem of [provenanceProblem(action, config), argumentProblem(action, config)])
        if (problem) problems.push(problem);
      const window = checkMessagingWindow(
        action,
        inbound.contact.lastInteraction,
        inbound.receivedAt,
        settings.messagingWindow,
      );
      if (!window.ok) problems.push(window.why);
    }
    problems.push(...contradictions(staged));
    return problems.length ? veto(problems.join('; ')) : pass(`${staged.length} action(s) within the tenant's policy`);
  },
};

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
    return `${action.summary}: staged with gate "${action.gate}" but ${resource ?? `tool "${action.tool}"`} requires "${gate}"`;
  return null;
}

/**
 * The kind's own check against the configuration (core/actions/), then what only policy knows:
 * the handoff tag and protected tags are the system's (the model asks for a human through the
 * typed `escalate` field).
 */
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

/**
 * Two staged actions on the same resource that are not the same action contradict each other
 * (a tag added and removed, a field set to two values): the turn does not know what it wants.
 */
function contradictions(staged: readonly StagedAction[]): string[] {
  const problems: string[] = [];
  const byResource = new Map<string, StagedAction>();
  for (const action of staged) {
    const resource = actionKind(action.kind).resource(action.args);
    if (!resource) continue;
    const earlier = byResource.get(resource);
    if (!earlier) {
      byResource.set(resource, action);
      continue;
    }
    if (earlier.kind === action.kind && canonicalJson(earlier.args) === canonicalJson(action.args)) continue;
    problems.push(`${resource} is acted on twice in one turn, differently: ${earlier.summary}; ${action.summary}`);
  }
  return problems;
}
