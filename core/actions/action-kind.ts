import { z } from 'zod';
import type { ActionConfigView } from './config-view.js';
import type { ApiResult, ChannelApis, ManyChatApi, MessengerApi } from './channel-api.js';
import type { ManyChatChannel } from '../manychat-channels.js';
import type { WordKey } from '../runtime-words.js';

/**
 * Everything about one kind of action, in one place: its arguments, how they are checked
 * against the tenant's configuration, whether it may be repeated, what it acts on (the resource
 * a gate binds to), how a person reads it, its undo, how each channel performs it and, for kinds
 * the model may stage, the model-facing tool input. The registry, the staging tools, the action
 * policy, the delivery and the dead letters all read these; none of them names a kind.
 */
export interface ActionKindSpec<Args, Input = never> {
  name: string;
  args: z.ZodType<Args>;
  /** May be repeated until done (tags, fields); otherwise performed at most once (sends). */
  idempotent: boolean;
  /** Puts a message in the contact's inbox, so Meta's 24-hour messaging window applies. */
  messagesContact: boolean;
  /**
   * The configured thing the action acts on (`flow:brochure`, `tag:vip`, `field:plan`): a
   * confirmation or approval binds to it, whatever tool staged the action. Null: nothing a
   * tenant configures (system content).
   */
  resource(args: Args): string | null;
  /** Why this action is not valid for this tenant's configuration, or null. */
  check(args: Args, config: ActionConfigView): string | null;
  /** What a person reads about it (dashboard, approval card, logs, the model's staging note). */
  summary(args: Args, config: ActionConfigView): string;
  /** The kind that reverses it, if there is one. */
  undoKind: string | null;
  /**
   * The ManyChat channels (Facebook, Instagram, WhatsApp, Telegram) it can be performed on: empty
   * when it has no ManyChat performer. A turn on a channel not listed is not offered its tool.
   */
  manyChatChannels: readonly ManyChatChannel[];
  /** How each channel performs it; a channel it lacks cannot perform it (and its tool is not offered there). */
  perform: {
    manychat?(api: ManyChatApi, contactId: string, args: Args, target: DeliveryTarget): Promise<ApiResult>;
    messenger?(api: MessengerApi, contactId: string, args: Args): Promise<ApiResult>;
    /** Performed the same way whatever the entry's channel (a call to the tenant's own webhook). */
    anyChannel?(apis: ChannelApis, contactId: string, args: Args): Promise<ApiResult>;
  };
  /** Present when a tenant may offer this kind to the model as a tool. */
  tool?: StagingToolSpec<Input, Args>;
  /**
   * How the contact reads it, in their language: the runtime word (core/runtime-words.ts) that
   * says it, filled with `{name}` (the resource's name), `{label}` and `{value}` (a field's label
   * and the value) and `{summary}`. Absent, or an action with no resource (system content): its
   * summary. Required of a kind the model may stage.
   */
  contactWords?: WordKey;
  /**
   * The completion claims an action of this kind speaks to ("sent", "tagged", "saved", "removed"):
   * one the model staged and was refused weighs against such a claim. Required of a kind the model
   * may stage.
   */
  claims?: readonly ClaimTopic[];
}

/** What a completion claim says was done (guardrails/completion-claims.ts reads a kind's topics). */
export type ClaimTopic = 'send' | 'tag' | 'field' | 'delete';

export interface StagingToolSpec<Input, Args> {
  /** Every resource of this kind the configuration has (`flow:brochure`, …): what a tool of it may act on. */
  resources(config: ActionConfigView): string[];
  /** The configuration as a tool limited to `keep` sees it (its menu, its refusals). */
  narrow(config: ActionConfigView, keep: (resource: string) => boolean): ActionConfigView;
  /** Appended to the tenant's tool description: what the model may choose from. */
  describe(config: ActionConfigView): string;
  input(config: ActionConfigView): z.ZodType<Input>;
  /** From what the model asked for to the action's arguments; a refusal names the allowed values. */
  resolve(input: Input, config: ActionConfigView): { ok: true; args: Args } | { ok: false; refusal: string };
}

/**
 * Where the entry's messages go, as the outbox entry recorded it (ManyChat: the contact's channel
 * and last message time there). A kind that messages the contact uses it when its arguments name none.
 */
export interface DeliveryTarget {
  surface?: ManyChatChannel;
  lastInboundAt?: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** A kind as the rest of the system sees it: every input is unknown and checked first. */
export interface ActionKindDefinition {
  name: string;
  idempotent: boolean;
  messagesContact: boolean;
  undoKind: string | null;
  /** The runtime word the contact reads it by, or null (its summary). */
  contactWords: WordKey | null;
  claims: readonly ClaimTopic[];
  stageable: boolean;
  parseArgs(args: unknown): Checked<Record<string, unknown>>;
  resource(args: unknown): string | null;
  check(args: unknown, config: ActionConfigView): string | null;
  summary(args: unknown, config: ActionConfigView): string;
  perform(
    channel: string,
    apis: ChannelApis,
    contactId: string,
    args: unknown,
    target?: DeliveryTarget,
  ): Promise<ApiResult>;
  /** Whether the kind can be performed on this channel (and, on ManyChat, the contact's channel there; absent: Facebook). */
  performsOn(channel: string, surface?: ManyChatChannel): boolean;
  manyChatChannels: readonly ManyChatChannel[];
  tool: ErasedStagingTool | null;
}

export interface ErasedStagingTool {
  resources(config: ActionConfigView): string[];
  narrow(config: ActionConfigView, keep: (resource: string) => boolean): ActionConfigView;
  describe(config: ActionConfigView): string;
  input(config: ActionConfigView): z.ZodType;
  /** Arguments ready to stage, with their summary, or the refusal the model reads. */
  resolve(
    input: unknown,
    config: ActionConfigView,
  ): { ok: true; args: Record<string, unknown>; summary: string } | { ok: false; refusal: string };
}

function refuse(message: string): ApiResult {
  return { ok: false, kind: 'permanent', status: 0, message };
}

export function defineActionKind<Args extends Record<string, unknown>, Input = never>(
  spec: ActionKindSpec<Args, Input>,
): ActionKindDefinition {
  const parseArgs = (args: unknown): Checked<Args> => {
    const parsed = spec.args.safeParse(args);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, problem: `invalid ${spec.name} arguments: ${z.prettifyError(parsed.error)}` };
  };
  const tool = spec.tool;
  // A ManyChat performer and the channels it declares go together, so neither can be forgotten.
  if (Boolean(spec.perform.manychat) !== spec.manyChatChannels.length > 0)
    throw new Error(
      `action kind ${spec.name}: manyChatChannels must list the ManyChat channels exactly when it has a ManyChat performer`,
    );
  // A kind the model may stage says how the contact reads it and which claims it speaks to.
  if (tool && (!spec.contactWords || !spec.claims?.length))
    throw new Error(`action kind ${spec.name}: a stageable kind needs contactWords and claims`);
  return {
    name: spec.name,
    idempotent: spec.idempotent,
    messagesContact: spec.messagesContact,
    undoKind: spec.undoKind,
    contactWords: spec.contactWords ?? null,
    claims: spec.claims ?? [],
    stageable: Boolean(tool),
    parseArgs,
    resource(args) {
      const parsed = parseArgs(args);
      return parsed.ok ? spec.resource(parsed.value) : null;
    },
    check(args, config) {
      const parsed = parseArgs(args);
      return parsed.ok ? spec.check(parsed.value, config) : parsed.problem;
    },
    summary(args, config) {
      const parsed = parseArgs(args);
      return parsed.ok ? spec.summary(parsed.value, config) : `${spec.name} (invalid arguments)`;
    },
    async perform(channel, apis, contactId, args, target = {}) {
      const parsed = parseArgs(args);
      if (!parsed.ok) return refuse(parsed.problem);
      if (spec.perform.anyChannel) return spec.perform.anyChannel(apis, contactId, parsed.value);
      if (channel === 'manychat' && spec.perform.manychat && apis.manychat)
        return spec.perform.manychat(apis.manychat, contactId, parsed.value, target);
      if (channel === 'messenger' && spec.perform.messenger && apis.messenger)
        return spec.perform.messenger(apis.messenger, contactId, parsed.value);
      return refuse(`${spec.name} cannot be performed on channel "${channel}"`);
    },
    manyChatChannels: spec.manyChatChannels,
    performsOn: (channel, surface) =>
      spec.perform.anyChannel !== undefined ||
      (channel === 'messenger' && spec.perform.messenger !== undefined) ||
      (channel === 'manychat' &&
        spec.perform.manychat !== undefined &&
        spec.manyChatChannels.includes(surface ?? 'facebook')),
    tool: tool
      ? {
          resources: (config) => tool.resources(config),
          narrow: (config, keep) => tool.narrow(config, keep),
          describe: (config) => tool.describe(config),
          input: (config) => tool.input(config),
          resolve(input, config) {
            const parsedInput = tool.input(config).safeParse(input);
            if (!parsedInput.success) return { ok: false, refusal: `Refused: ${z.prettifyError(parsedInput.error)}` };
            const resolved = tool.resolve(parsedInput.data, config);
            if (!resolved.ok) return resolved;
            // The tool's own output must satisfy the kind's args and the tenant's configuration.
            const problem = spec.check(resolved.args, config);
            if (problem) return { ok: false, refusal: `Refused: ${problem}.` };
            return { ok: true, args: resolved.args, summary: spec.summary(resolved.args, config) };
          },
        }
      : null,
  };
}
