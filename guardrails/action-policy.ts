import type { StagedAction } from '../core/staged-action.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import { gateOf } from '../core/tenant/manifest.js';
import { coerceFieldValue } from '../tools/builtins/set-field.js';
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
 *   and its value passes the field's type and choices; media in a send_content come only from
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
const TOOL_KIND_FOR_ACTION: Record<string, string> = { send_flow: 'send_flow', add_tag: 'add_tag', remove_tag: 'remove_tag', set_field: 'set_field' };

export const actionPolicyGuardrail: Guardrail = {
  name: 'action-policy',
  check({ staged, config, inbound }) {
    if (!staged.length) return pass('nothing staged');
    const settings = config.guardrails;
    const problems: string[] = [];
    if (staged.length > settings.actions.maxActionsPerTurn) problems.push(`${staged.length} actions staged; at most ${settings.actions.maxActionsPerTurn} a turn`);
    const flows = staged.filter((a) => a.kind === 'send_flow').length;
    if (flows > settings.actions.maxFlowsPerTurn) problems.push(`${flows} flows staged; at most ${settings.actions.maxFlowsPerTurn} a turn`);
    for (const action of staged) {
      for (const problem of [provenanceProblem(action, config), argumentProblem(action, config)]) if (problem) problems.push(problem);
      const window = checkMessagingWindow(action, inbound.contact.lastInteraction, inbound.receivedAt, settings.messagingWindow);
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
  if (!declaration || declaration.effect === 'read') return `${action.summary}: tool "${action.tool}" is not declared as a write tool`;
  const expectedKind = TOOL_KIND_FOR_ACTION[action.kind];
  if (!expectedKind) return `${action.summary}: no configured tool stages ${action.kind} actions`;
  if (instance.kind !== expectedKind) return `${action.summary}: tool "${action.tool}" is a ${instance.kind} tool, not ${expectedKind}`;
  const gate = gateOf(declaration);
  if (action.gate !== gate) return `${action.summary}: staged with gate "${action.gate}" but tool "${action.tool}" requires "${gate}"`;
  return null;
}

function argumentProblem(action: StagedAction, config: TenantConfig): string | null {
  const settings = config.guardrails.actions;
  switch (action.kind) {
    case 'send_flow': {
      const flow = config.flows.find((f) => f.name === action.args.flowName);
      if (!flow) return `flow "${String(action.args.flowName)}" is not configured`;
      if (flow.ns !== action.args.flowNs) return `flow "${flow.name}" was staged with namespace "${String(action.args.flowNs)}", not the configured one`;
      return null;
    }
    case 'add_tag':
    case 'remove_tag': {
      const tag = String(action.args.tag);
      if (!config.tags.some((t) => t.name === tag)) return `tag "${tag}" is not configured`;
      if (tag === config.handoff.tag) return `tag "${tag}" is the handoff tag: only the system hands off (the model sets escalate)`;
      if (settings.protectedTags.includes(tag)) return `tag "${tag}" is protected: the model may not add or remove it`;
      return null;
    }
    case 'set_field': {
      const field = config.fields.find((f) => f.name === action.args.field);
      if (!field) return `field "${String(action.args.field)}" is not configured`;
      const checked = coerceFieldValue(field, action.args.value);
      if (!checked.ok) return checked.why;
      if (checked.value !== action.args.value) return `field "${field.name}" was staged with ${JSON.stringify(action.args.value)}, which is not its typed value`;
      return null;
    }
    case 'send_content':
      return mediaProblem(action, settings.mediaHosts);
    default:
      return null;
  }
}

/** Every media URL a send_content carries must be https on an allowed host. */
export function mediaProblem(action: StagedAction, mediaHosts: readonly string[]): string | null {
  for (const url of mediaUrls(action.args)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `media "${url.slice(0, 80)}" is not a URL`;
    }
    if (parsed.protocol !== 'https:') return `media "${parsed.href.slice(0, 80)}" is not https`;
    const host = parsed.hostname.toLowerCase();
    const allowed = mediaHosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) && host.length > h.length - 1 : host === h));
    if (!allowed) return `media host "${host}" is not in the tenant's media allow-list`;
  }
  return null;
}

/** URLs under the keys ManyChat content uses for media (`url`, `image_url`, `media`…), at any depth. */
function mediaUrls(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return /^(?:url|image_url|video_url|audio_url|file_url|media|media_url|src)$/i.test(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => mediaUrls(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => mediaUrls(v, k));
  return [];
}

function contradictions(staged: readonly StagedAction[]): string[] {
  const problems: string[] = [];
  const added = new Set(staged.filter((a) => a.kind === 'add_tag').map((a) => String(a.args.tag)));
  for (const a of staged) if (a.kind === 'remove_tag' && added.has(String(a.args.tag))) problems.push(`tag "${String(a.args.tag)}" is both added and removed`);
  const fieldValues = new Map<string, unknown>();
  for (const a of staged.filter((x) => x.kind === 'set_field')) {
    const field = String(a.args.field);
    if (fieldValues.has(field) && fieldValues.get(field) !== a.args.value) problems.push(`field "${field}" is set to two values`);
    fieldValues.set(field, a.args.value);
  }
  return problems;
}
