import { tool, type Tool } from 'ai';
import { ReplySchema } from '../core/reply.js';
import type { TenantConfig, ToolInstance } from '../core/tenant/tenant-config.js';
import { canonicalToolOrder } from './canonical-order.js';
import { compareCodeUnits, REST_ENTRY } from '../core/tenant/tool-order.js';
import type { Manifest, ToolDeclaration } from '../core/tenant/manifest.js';
import { lookupContactTool } from './builtins/lookup-contact.js';
import { searchFaqTool } from './builtins/search-faq.js';
import { actionKind } from '../core/actions/index.js';
import { isReadToolKind } from '../core/tenant/tenant-config.js';
import { runEachCallOnce } from './run-once.js';
import { registrationProblem } from '../core/tenant/tool-registration.js';
import { wrappedSchema } from './schema-cache.js';
import { stagingTool } from './staging-tool.js';
import type { Shortlist } from './shortlist.js';
import type { ToolContext, WritePolicy } from './tool-context.js';

export const REPLY_TOOL_NAME = 'reply';

/** Read tools return data; write tools stage. Used for prompt marking and the one-step rule. */
export function effectOfKind(kind: ToolInstance['kind']): 'read' | 'write' {
  return isReadToolKind(kind) ? 'read' : 'write';
}

function buildInstance(
  instance: ToolInstance,
  ctx: ToolContext,
  policy: WritePolicy,
  declaration: ToolDeclaration,
  shortlisted?: readonly string[],
): Tool {
  switch (instance.kind) {
    case 'lookup_contact':
      return lookupContactTool(instance, ctx);
    case 'search_faq':
      return searchFaqTool(instance, ctx, declaration.answers_directly === true);
    default:
      return stagingTool(instance, actionKind(instance.kind), ctx, policy, shortlisted);
  }
}

/** The reply tool has no `execute`: calling it ends the AI SDK loop and hands the reply to code. */
export function replyTool(): Tool {
  return tool({
    description:
      'End the turn: the message for the contact, whether a human must take over, your confidence, and why. Call exactly once, last.',
    inputSchema: REPLY_INPUT,
  });
}
/** Wrapped once for the process: its JSON Schema is computed on first use only (tools/schema-cache.ts). */
const REPLY_INPUT = wrappedSchema(ReplySchema);

export interface TurnToolset {
  tools: Record<string, Tool>;
  /** Canonical order of the model-facing tool list (also passed as the AI SDK's toolOrder). */
  order: string[];
  /** Per registered tool: its declaration (the reply tool has none). */
  declarations: Record<string, ToolDeclaration>;
  /** Tools that were not registered, each with why (shown in the turn record). */
  refused: string[];
}

/** Why an instance cannot be registered under this manifest, or null if it can (the rule lives in core: the save uses it too). */
export { registrationProblem };

/** Declared tools with no registered implementation, and registered ones with no declaration. */
export function manifestDrift(config: TenantConfig): {
  declaredNotRegistered: string[];
  registeredNotDeclared: string[];
} {
  const registered = new Set(config.tools.map((t) => t.name));
  return {
    declaredNotRegistered: Object.keys(config.manifest)
      .filter((n) => !registered.has(n))
      .sort(compareCodeUnits),
    registeredNotDeclared: [...registered].filter((n) => !(n in config.manifest)).sort(compareCodeUnits),
  };
}

/** The canonical order of the registered tools under the tenant's toolOrder (refused tools it names are skipped). */
function offeredOrder(
  registered: readonly string[],
  config: TenantConfig,
  toolOrder: readonly string[] | undefined,
): string[] {
  const names = new Set(registered);
  return canonicalToolOrder(
    registered,
    toolOrder
      ? toolOrder.filter((n) => n === REST_ENTRY || names.has(n) || !config.tools.some((t) => t.name === n))
      : undefined,
  );
}

/**
 * The order the model is offered the tools in (what buildTurnTools produces, `reply` included),
 * and why any configured tool is not offered. Throws ToolOrderError for an invalid toolOrder.
 */
export function effectiveToolOrder(config: TenantConfig): { order: string[]; notRegistered: string[] } {
  const registered: string[] = [];
  const notRegistered: string[] = [];
  for (const instance of config.tools) {
    const problem = registrationProblem(instance, config.manifest, config.tenantId);
    if (problem) notRegistered.push(problem);
    else registered.push(instance.name);
  }
  return { order: offeredOrder([...registered, REPLY_TOOL_NAME], config, config.toolOrder), notRegistered };
}

/**
 * Builds the model-facing tools for one turn, in canonical order: the record is created in that
 * order, so iteration order and `toolOrder` agree and the request bytes do not depend on how
 * the tenant listed its tools. Throws ToolOrderError for an invalid tenant toolOrder.
 */
export function buildTurnTools(ctx: ToolContext, toolOrder?: readonly string[], list?: Shortlist): TurnToolset {
  const byName = new Map<string, Tool>();
  const declarations: Record<string, ToolDeclaration> = {};
  const refused: string[] = [];
  for (const instance of ctx.config.tools) {
    const problem = registrationProblem(instance, ctx.config.manifest, ctx.config.tenantId);
    if (problem) {
      refused.push(problem);
      continue;
    }
    // A channel is never offered a write it cannot perform (Messenger has no flows, tags or custom
    // fields): staged, passed and committed, the action would only die at delivery, after the
    // contact was told it is on its way.
    const channel = ctx.inbound.channel;
    if (!isReadToolKind(instance.kind) && !actionKind(instance.kind).performsOn(channel, ctx.inbound.surface)) {
      refused.push(
        `tool "${instance.name}" stages ${instance.kind}, which channel ${channel}${ctx.inbound.surface ? ` (${ctx.inbound.surface})` : ''} cannot perform; not offered on this channel`,
      );
      continue;
    }
    // Left off this turn by the shortlist (tools/shortlist.ts); its registration problems still show above.
    if (list?.active && !list.tools.includes(instance.name)) continue;
    const declaration = ctx.config.manifest[instance.name]!;
    const policy: WritePolicy = { effect: declaration.effect === 'destructive' ? 'destructive' : 'write' };
    byName.set(
      instance.name,
      buildInstance(instance, ctx, policy, declaration, list?.active ? list.resources[instance.name] : undefined),
    );
    declarations[instance.name] = declaration;
  }
  byName.set(REPLY_TOOL_NAME, replyTool());
  // The tenant's order is checked against every tool it names, registered or not, so a refusal
  // does not turn a valid order into a configuration error.
  const order = offeredOrder([...byName.keys()], ctx.config, toolOrder);
  const tools: Record<string, Tool> = {};
  for (const name of order) tools[name] = byName.get(name)!;
  return { tools: runEachCallOnce(tools), order, declarations, refused };
}
