import type { StagedAction } from '../core/staged-action.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { actionKind } from '../core/actions/index.js';
import { canonicalJson } from '../core/canonical-json.js';
import { actionNotAllowed } from '../core/tenant/action-allowed.js';
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
      const problem = actionNotAllowed(action, config);
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
