import type { InboundMessage } from '../../core/inbound-message.js';
import type { ManyChatCallbackButton, MessengerQuickReply } from '../../core/actions/channel-api.js';
import type { OutgoingReply } from '../../core/turn-record.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';

/**
 * What the turn needs to know about a channel — everything else (the turn, tools, guardrails,
 * commit, outbox) is shared. A channel is one folder under src/channels/ with:
 *  1. its route: authenticate, parse the wire format into `InboundMessage`s, hand each to the
 *     shared turn (src/turn/), and answer the way the platform expects;
 *  2. this definition (how its buttons look, how its replies travel);
 * plus, outside the folder, one `perform.<channel>` line in each action kind it can perform
 * (core/actions/) and its API client (outbox/), created in src/tenants/channel-apis.ts.
 */
/** A button in some channel's own form (what `send_content`'s `quickReplies` carries). */
export type ChannelButton = ManyChatCallbackButton | MessengerQuickReply;

export interface ButtonContext {
  /** Signs button payloads (SESSION_SECRET). */
  secret: SecretsInput;
  tenantId: string;
  contactId: string;
  /** Where a button posts back, for channels whose buttons call us (ManyChat). */
  callbackUrl?: string;
  /** ManyChat: the contact's channel, carried in each button so the press is answered in its shape. */
  surface?: InboundMessage['surface'];
}

export interface ChannelDefinition {
  name: InboundMessage['channel'];
  /**
   * `webhook`: the reply rides in the webhook's answer when the turn is in time, else the outbox
   * (ManyChat). `outbox`: the webhook is answered at once and every reply goes through the outbox
   * (Messenger).
   */
  replies: 'webhook' | 'outbox';
  /** Replies to one contact are delivered in the order of the contact's messages (outbox/reply-order.ts). */
  orderedReplies: boolean;
  /** A reply's quick replies in the channel's own form, each confirmation button signed. */
  renderButtons(reply: Pick<OutgoingReply, 'quickReplies'>, ctx: ButtonContext): Promise<ChannelButton[]>;
  /** Arguments the channel's send of a reply needs beyond text and buttons (Messenger: the window's start). */
  replyArgs(inbound: InboundMessage): Record<string, unknown>;
}
