import type { TenantConfig, ToolInstance } from '../../../core/tenant/tenant-config.js';

/** The structured end-of-turn tool. Always offered by the product, never executed. */
export const REPLY_TOOL_NAME = 'reply';

export type ToolKind = ToolInstance['kind'];

/** Input of the `reply` tool; mirrors `ReplySchema` in src/domain/reply.ts. */
export interface ReplyInput {
  text: string;
  escalate: boolean;
  confidence: number;
  reason: string;
  quickReplies?: string[];
}

/** Primitive tool-input values are all the built-in tool kinds ever need. */
export type InputValue = string | number | boolean;

/** A non-reply tool call the rules decided on (a staging or a read call). */
export interface PlannedCall {
  toolName: string;
  input: Record<string, InputValue>;
}

/**
 * What one model step answers: the tool calls (staging/read) and, unless the step only reads,
 * the reply. `rule` names the rule that fired, for the reply's `reason` and for debugging.
 */
export interface Plan {
  rule: string;
  calls: PlannedCall[];
  reply?: ReplyInput;
}

/** What a rule may look at: the tenant config captured at construction and the callable tool names. */
export interface RuleContext {
  config: TenantConfig;
  /** Function tools in `options.tools` that `options.toolChoice` allows the model to call. */
  callable: ReadonlySet<string>;
}

/**
 * The tenant's first instance of a kind that is also callable in this request. Both conditions
 * matter: the config says what the instance is, `options.tools` says whether it is on the loop.
 */
export function callableInstance(ctx: RuleContext, kind: ToolKind): ToolInstance | undefined {
  return ctx.config.tools.find((t) => t.kind === kind && ctx.callable.has(t.name));
}

/** The config kind of a tool name (undefined for `reply` and for names the tenant never declared). */
export function kindOf(ctx: RuleContext, toolName: string): ToolKind | undefined {
  return ctx.config.tools.find((t) => t.name === toolName)?.kind;
}
