import { buildOutboxEntry } from '../../../core/outbox-entry.js';
import type { TenantConfig } from '../../../core/tenant/tenant-config.js';
import { publishCommitted } from '../../../outbox/commit.js';
import { commitNoticeEntry } from '../../../outbox/commit-notice.js';
import { answerConfirmation, type ConfirmationAnswer } from '../../approvals/answer-confirmation.js';
import type { Services } from '../../http/app-context.js';
import { confirmPayloadVerifies, type ConfirmPayload } from './quick-replies.js';
import { sessionSecrets } from '../../env.js';

export type PressOutcome = ConfirmationAnswer['outcome'] | 'forged';

/**
 * A press of a confirmation button on Messenger (quick reply or postback): the payload's
 * signature must bind it to this tenant and this contact, else nothing happens at all. A genuine
 * press goes to the shared confirmation answer (Yes commits exactly the pinned actions, once; a
 * replay changes nothing). What became of it is told to the contact through the outbox, once
 * per row (a retried webhook or a second press queues no second notice); a replayed or invalid
 * press is not answered — except a repeat of the very answer that decided the row, which makes
 * sure its notice exists (its first try may have failed between the decision and the notice).
 */
export async function answerMessengerPress(
  services: Services,
  config: TenantConfig,
  press: { contactId: string; at: number; payload: ConfirmPayload },
  now = new Date(),
): Promise<PressOutcome> {
  const { contactId, payload } = press;
  const secret = sessionSecrets(services.env);
  if (!(await confirmPayloadVerifies(payload, secret, config.tenantId, contactId))) return 'forged';
  const session = services.redis();
  const publisher = services.publisher();
  const answer = await answerConfirmation(
    { session, publisher, pinSecret: secret, now, config },
    {
      tenantId: config.tenantId,
      contactId,
      pendingId: payload.pendingId,
      answer: payload.answer,
      nonce: payload.nonce,
    },
  );
  // A retry of the same answer (Meta redelivers a press it got no 200 for) whose first try decided
  // the row but stopped before the notice was stored: it is told now. Once per row either way.
  const told = answer.outcome === 'already-answered' ? (answer.sameAs ?? null) : answer;
  if (told && ['confirmed', 'declined', 'expired', 'refused'].includes(told.outcome)) {
    const entryId = `${payload.pendingId}.answer`;
    const notice = buildOutboxEntry({
      entryId,
      tenantId: config.tenantId,
      channel: 'messenger',
      contactId,
      actions: [
        {
          id: `${entryId}.text`,
          tool: 'system:confirmation-answer',
          kind: 'send_content',
          args: { text: told.text, lastInboundAt: new Date(press.at).toISOString() },
          effect: 'write',
          idempotent: false,
          gate: 'none',
          summary: `tell the contact: ${told.outcome}`,
        },
      ],
      now,
      retentionDays: config.retentionDays,
    });
    if (await commitNoticeEntry(session, notice)) await publishCommitted(publisher, notice);
  }
  return answer.outcome;
}
