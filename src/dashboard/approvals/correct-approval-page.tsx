import type { FC } from 'hono/jsx';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import type { ApprovalCard } from '../data/approvals.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';

/** The pinned arguments as the form's fields: one input per argument, named `arg.<name>`. */
export function argumentFields(pinnedArgs: string): [string, string][] {
  const parsed = JSON.parse(pinnedArgs) as Record<string, unknown>;
  return Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
}

/**
 * Approve with changes: the pinned call shown as it is, and a form with each argument to correct.
 * Saying so plainly: the original is rejected (its terms are never edited) and the corrected call
 * becomes a new approval, authored by this user, performed once.
 */
export const CorrectApprovalPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  card: ApprovalCard;
  values?: Record<string, string>;
  problem?: string | undefined;
}> = ({ dash, tenantName, card, values, problem }) => (
  <Layout title="Approve with changes" section="approvals" dash={dash} tenantName={tenantName}>
    {problem ? <Notice kind="error">{problem}</Notice> : null}
    <p>
      The pinned call, for contact <strong>{card.contactId}</strong>:
    </p>
    <pre>{`${card.tool}(${card.args})`}</pre>
    <p>{card.card}</p>
    <p class="muted">
      Correcting does not edit this approval: it is rejected, and the corrected call becomes a new approval written by
      you ({dash.user}), checked against the current setup and performed once. Both are in the audit log.
    </p>
    <form method="post" action={`${BASE}/approvals/${card.id}/correct`} class="card">
      <CsrfField token={dash.csrf} />
      <input type="hidden" name="confirm" value="yes" />
      {argumentFields(card.args).map(([name, pinned]) => (
        <>
          <label for={`arg-${name}`}>{name}</label>
          <input
            id={`arg-${name}`}
            name={`arg.${name}`}
            type="text"
            value={values?.[name] ?? pinned}
            aria-describedby={problem ? 'correct-problem' : undefined}
          />
        </>
      ))}
      {problem ? (
        <p id="correct-problem" class="error">
          {problem}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit">Reject the original and perform the corrected call</button>
        <a class="button secondary" href={`${BASE}/approvals`}>
          Cancel
        </a>
      </div>
    </form>
  </Layout>
);
