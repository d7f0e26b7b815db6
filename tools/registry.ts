import { tool, type Tool } from 'ai';
import { ReplySchema } from '../src/domain/reply.js';
import type { ToolInstance } from '../src/tenants/tenant-config.js';
import { canonicalToolOrder } from './canonical-order.js';
import { lookupContactTool } from './builtins/lookup-contact.js';
import { searchFaqTool } from './builtins/search-faq.js';
import { sendFlowTool } from './builtins/send-flow.js';
import { setFieldTool } from './builtins/set-field.js';
import { tagContactTool } from './builtins/tag-contact.js';
import type { ToolContext } from './tool-context.js';

export const REPLY_TOOL_NAME = 'reply';

/** Read tools return data; write tools stage. Used for prompt marking and the one-step rule. */
export function effectOfKind(kind: ToolInstance['kind']): 'read' | 'write' {
  return kind === 'lookup_contact' || kind === 'search_faq' ? 'read' : 'write';
}

function buildInstance(instance: ToolInstance, ctx: ToolContext): Tool {
  switch (instance.kind) {
    case 'send_flow':
      return sendFlowTool(instance, ctx);
    case 'add_tag':
      return tagContactTool(instance, ctx, 'add');
    case 'remove_tag':
      return tagContactTool(instance, ctx, 'remove');
    case 'set_field':
      return setFieldTool(instance, ctx);
    case 'lookup_contact':
      return lookupContactTool(instance, ctx);
    case 'search_faq':
      return searchFaqTool(instance, ctx);
  }
}

/** The reply tool has no `execute`: calling it ends the AI SDK loop and hands the reply to code. */
export function replyTool(): Tool {
  return tool({
    description: 'End the turn: the message for the contact, whether a human must take over, your confidence, and why. Call exactly once, last.',
    inputSchema: ReplySchema,
  });
}

export interface TurnToolset {
  tools: Record<string, Tool>;
  /** Canonical order of the model-facing tool list (also passed as the AI SDK's toolOrder). */
  order: string[];
  effects: Record<string, 'read' | 'write'>;
}

/**
 * Builds the model-facing tools for one turn, in canonical order: the record is created in that
 * order, so iteration order and `toolOrder` agree and the request bytes do not depend on how
 * the tenant listed its tools. Throws ToolOrderError for an invalid tenant toolOrder.
 */
export function buildTurnTools(ctx: ToolContext, toolOrder?: readonly string[]): TurnToolset {
  const byName = new Map<string, Tool>();
  const effects: Record<string, 'read' | 'write'> = {};
  for (const instance of ctx.config.tools) {
    byName.set(instance.name, buildInstance(instance, ctx));
    effects[instance.name] = effectOfKind(instance.kind);
  }
  byName.set(REPLY_TOOL_NAME, replyTool());
  const order = canonicalToolOrder([...byName.keys()], toolOrder);
  const tools: Record<string, Tool> = {};
  for (const name of order) tools[name] = byName.get(name)!;
  return { tools, order, effects };
}
