import { actionKind } from '../core/actions/index.js';
import type { StagedAction } from '../core/staged-action.js';
import type { GuardrailSettings, MessageTag } from '../core/tenant/guardrail-settings.js';

/**
 * Meta's 24-hour standard messaging window: a page may message a contact freely only within 24 h
 * of the contact's last message; after that only with a message tag (HUMAN_AGENT: up to 7 days).
 * ManyChat answers code 3011 to a send outside it. Sends staged by a turn are performed later by
 * the outbox (after a confirmation or an approval, possibly much later), so the check uses the
 * latest time the send may be performed, not the turn's time.
 *
 * `lastInteraction` comes from ManyChat's Full Contact Data. When it is absent the inbound
 * message itself is the contact's last interaction (they just wrote). When it is present but
 * unreadable the send is treated as outside the window (fail closed). A value in the future
 * (clock skew) counts as now.
 *
 * This is a pure function so the deferred-reply path (a system send_content after the deadline)
 * can apply the same rule before it stages its send.
 */
export const WINDOW_MS = 24 * 3600_000;
export const HUMAN_AGENT_WINDOW_MS = 7 * 24 * 3600_000;

export type WindowCheck = { ok: true; why: string } | { ok: false; why: string };

export function checkMessagingWindow(
  action: StagedAction,
  lastInteraction: string | undefined,
  receivedAt: string,
  settings: GuardrailSettings['messagingWindow'],
): WindowCheck {
  if (!actionKind(action.kind).messagesContact) return { ok: true, why: 'not a send' };
  const received = Date.parse(receivedAt);
  if (Number.isNaN(received)) return { ok: false, why: 'the turn has no readable receive time' };
  let last = received;
  if (lastInteraction !== undefined) {
    const parsed = Date.parse(lastInteraction);
    if (Number.isNaN(parsed))
      return {
        ok: false,
        why: `the contact's last interaction "${lastInteraction.slice(0, 40)}" is not a readable time`,
      };
    last = Math.min(parsed, received);
  }
  const marginMin = action.gate === 'none' ? settings.deliveryMarginMinutes : settings.gatedMarginMinutes;
  const latestSend = received + marginMin * 60_000;
  if (latestSend - last <= WINDOW_MS) return { ok: true, why: 'within the 24-hour window' };

  const tag = typeof action.args.messageTag === 'string' ? (action.args.messageTag as MessageTag) : undefined;
  const hours = Math.round((latestSend - last) / 3600_000);
  if (!tag)
    return {
      ok: false,
      why: `${action.summary} would be sent ${hours} h after the contact's last message, outside the 24-hour window, and carries no message tag`,
    };
  if (!settings.allowedMessageTags.includes(tag))
    return {
      ok: false,
      why: `${action.summary} is outside the 24-hour window and message tag ${tag} is not allowed for this tenant`,
    };
  if (tag === 'HUMAN_AGENT' && latestSend - last > HUMAN_AGENT_WINDOW_MS)
    return { ok: false, why: `${action.summary} is past HUMAN_AGENT's 7-day window` };
  return { ok: true, why: `outside the 24-hour window with allowed message tag ${tag}` };
}
