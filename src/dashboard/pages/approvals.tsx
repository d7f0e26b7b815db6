import type { FC } from 'hono/jsx';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import type { ApprovalCard } from '../data/approvals.js';
import { CsrfField, Layout, Notice } from './layout.js';

export function timeLeft(ms: number): string {
  if (ms <= 0) return 'expired';
  const minutes = Math.floor(ms / 60_000);
  return minutes >= 1 ? `${minutes} min left` : `${Math.ceil(ms / 1000)} s left`;
}

const RESULT_TEXT: Record<string, string> = {
  approved: 'Approved: the pinned call was handed to the outbox and will be performed once.',
  rejected: 'Rejected: nothing was performed; the contact is told nothing was changed.',
  expired: 'That approval had expired: nothing was performed.',
  'already-decided': 'That approval was already decided; nothing more was done.',
  'not-found': 'No such approval for this tenant.',
  refused:
    'Not performed: your configuration no longer allows this call (the tool, the flow, tag or field, or its gate changed since it was asked for). The contact is told nothing was changed.',
  tampered:
    'That approval failed its integrity check; nothing was performed. Still waiting, it is now expired and the contact was told.',
  corrected:
    'Corrected: the original approval was rejected (its terms unchanged) and the corrected call, a new approval written by you, was handed to the outbox to be performed once.',
  'corrected-superseded':
    'The original was rejected, but the corrected call already waits in another approval for this contact: this correction performed nothing; decide that one.',
  suspended:
    'This tenant is suspended: nothing new is performed until an operator resumes it. The approval still waits (until it expires); reject works.',
};

export const ApprovalsPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  cards: ApprovalCard[];
  result?: string | undefined;
}> = ({ dash, tenantName, cards, result }) => (
  <Layout title="Approvals" section="approvals" dash={dash} tenantName={tenantName}>
    {result && RESULT_TEXT[result] ? (
      <Notice kind={result === 'approved' || result === 'rejected' || result === 'corrected' ? 'ok' : 'error'}>
        {RESULT_TEXT[result]}
      </Notice>
    ) : null}
    <p class="muted">
      Destructive and approval-gated actions wait here for one hour. Approve performs exactly the pinned call; reject
      and expiry perform nothing.
    </p>
    {cards.every((c) => c.shownStatus !== 'pending') ? <p>No approvals waiting.</p> : null}
    <div class="cards">
      {cards.map((card) => (
        <article class={`card ${card.shownStatus}`} aria-labelledby={`${card.id}-title`}>
          <h2 id={`${card.id}-title`}>{card.card}</h2>
          <p>
            <span class={`badge ${card.shownStatus}`}>{card.shownStatus}</span> ·{' '}
            {card.shownStatus === 'pending'
              ? timeLeft(card.msLeft)
              : card.shownStatus === 'expired'
                ? `expired at ${card.expiresAt}`
                : `decided (asked ${card.createdAt})`}
          </p>
          <dl>
            <dt>For contact</dt>
            <dd>{card.contactId}</dd>
            <dt>Undo</dt>
            <dd>{card.undo ? `the tool "${card.undo}" reverses it` : 'no undo tool declared'}</dd>
            {card.authoredBy ? (
              <>
                <dt>Written by</dt>
                <dd>
                  {card.authoredBy}
                  {card.corrects ? `, correcting ${card.corrects}` : ''}
                </dd>
              </>
            ) : null}
            {card.correctedBy ? (
              <>
                <dt>Corrected</dt>
                <dd>rejected and replaced by {card.correctedBy}</dd>
              </>
            ) : null}
            <dt>The contact wrote</dt>
            <dd>
              <q>{card.contactWords || '(no text)'}</q>
            </dd>
          </dl>
          <details>
            <summary>The exact pinned call</summary>
            <pre>{`${card.tool}(${card.args})`}</pre>
            <p>
              From turn <a href={`${BASE}/turns/${card.turnId}`}>{card.turnId}</a>
            </p>
          </details>
          {card.shownStatus === 'pending' ? (
            <div class="actions">
              <a class="button" href={`${BASE}/approvals/${card.id}/confirm`}>
                Approve…
              </a>
              <a class="button secondary" href={`${BASE}/approvals/${card.id}/correct`}>
                Approve with changes…
              </a>
              <form method="post" action={`${BASE}/approvals/${card.id}/reject`}>
                <CsrfField token={dash.csrf} />
                <button type="submit" class="danger">
                  Reject
                </button>
              </form>
            </div>
          ) : null}
        </article>
      ))}
    </div>
  </Layout>
);

export const ConfirmApprovalPage: FC<{ dash: DashboardSession; tenantName: string; card: ApprovalCard }> = ({
  dash,
  tenantName,
  card,
}) => (
  <Layout title="Confirm approval" section="approvals" dash={dash} tenantName={tenantName}>
    <p>
      Approving performs this call once, for contact <strong>{card.contactId}</strong>:
    </p>
    <pre>{`${card.tool}(${card.args})`}</pre>
    <p>{card.card}</p>
    <p>{card.undo ? `It can be reversed with "${card.undo}".` : 'No undo tool is declared for it.'}</p>
    <form method="post" action={`${BASE}/approvals/${card.id}/approve`} class="actions">
      <CsrfField token={dash.csrf} />
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit">Yes, approve and perform it</button>
      <a class="button secondary" href={`${BASE}/approvals`}>
        Cancel
      </a>
    </form>
  </Layout>
);
