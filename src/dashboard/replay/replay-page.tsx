import type { FC } from 'hono/jsx';
import type { ReplayReport } from '../../replay/replay-report.js';
import type { ReplayedTurn } from '../../replay/replay-turn.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import { DataTable } from '../pages/data-table.js';

const DECISIONS = ['', 'pass', 'veto', 'escalate', 'error'] as const;

export interface ReplayPageProps {
  dash: DashboardSession;
  tenantName: string;
  /** The form's fields as last typed (the stored config, pretty, on first view). */
  values: Record<string, string>;
  errors: Record<string, string>;
  /** A refusal for the whole run (rate limit, no model). */
  refusal?: string;
  report?: ReplayReport;
}

const Field: FC<{ id: string; label: string; errors: Record<string, string>; children?: unknown }> = ({
  id,
  label,
  errors,
  children,
}) => (
  <>
    <label for={`replay-${id}`}>{label}</label>
    {children}
    {errors[id] ? (
      <p id={`replay-${id}-error`} class="error">
        {errors[id]}
      </p>
    ) : null}
  </>
);

const invalid = (errors: Record<string, string>, id: string) =>
  errors[id] ? { 'aria-invalid': 'true', 'aria-describedby': `replay-${id}-error` } : {};

/** `/dashboard/replay`: pick recorded turns and a candidate config; see what would change. */
export const ReplayPage: FC<ReplayPageProps> = ({ dash, tenantName, values, errors, refusal, report }) => (
  <Layout title="Replay" section="replay" dash={dash} tenantName={tenantName}>
    <p class="muted">
      Run recorded turns again with a candidate config through the real tools, guardrails and decision. Nothing is sent,
      tagged, saved or committed. A recorded model answer is reused only for a request that is byte for byte the
      recorded one; a changed request needs a model.
    </p>
    <form method="post" action={`${BASE}/replay`} class="card">
      <CsrfField token={dash.csrf} />
      <Field id="ids" label="Turn ids (one a line; empty: the newest turns that match below)" errors={errors}>
        <textarea id="replay-ids" name="ids" {...invalid(errors, 'ids')}>
          {values.ids ?? ''}
        </textarea>
      </Field>
      <Field id="decision" label="Recorded decision" errors={errors}>
        <select id="replay-decision" name="decision" {...invalid(errors, 'decision')}>
          {DECISIONS.map((d) => (
            <option value={d} selected={d === (values.decision ?? '')}>
              {d || 'any'}
            </option>
          ))}
        </select>
      </Field>
      <Field id="contact" label="Contact id" errors={errors}>
        <input
          id="replay-contact"
          name="contact"
          type="text"
          value={values.contact ?? ''}
          {...invalid(errors, 'contact')}
        />
      </Field>
      <Field id="since" label="From (UTC)" errors={errors}>
        <input
          id="replay-since"
          name="since"
          type="datetime-local"
          value={values.since ?? ''}
          {...invalid(errors, 'since')}
        />
      </Field>
      <Field id="until" label="Until (UTC)" errors={errors}>
        <input
          id="replay-until"
          name="until"
          type="datetime-local"
          value={values.until ?? ''}
          {...invalid(errors, 'until')}
        />
      </Field>
      <Field id="limit" label="Newest matching turns to replay" errors={errors}>
        <input
          id="replay-limit"
          name="limit"
          type="number"
          min="1"
          value={values.limit || '50'}
          {...invalid(errors, 'limit')}
        />
      </Field>
      <Field id="config" label="Candidate config (JSON; your current config to start with)" errors={errors}>
        <textarea id="replay-config" name="config" rows={16} {...invalid(errors, 'config')}>
          {values.config ?? ''}
        </textarea>
      </Field>
      <label class="check" for="replay-model">
        <input id="replay-model" type="checkbox" name="model" value="yes" checked={values.model === 'yes'} /> Let your
        model answer the calls whose request changed (these are real model calls)
      </label>
      <div class="actions">
        <button type="submit">Replay</button>
      </div>
    </form>
    {refusal ? <Notice kind="error">{refusal}</Notice> : null}
    {report ? <ReportView report={report} /> : null}
  </Layout>
);

const outcomeText = (o: ReplayedTurn['before']) =>
  `${o.decision}${o.decidingGuardrail ? ` (${o.decidingGuardrail})` : ''}`;

const ReportView: FC<{ report: ReplayReport }> = ({ report }) => {
  const s = report.summary;
  return (
    <section aria-labelledby="replay-report" class="card">
      <h2 id="replay-report">Report</h2>
      <Notice kind="info">Replay: nothing was sent, committed or saved.</Notice>
      <dl id="replay-summary">
        <dt>Turns replayed</dt>
        <dd>{s.replayed}</dd>
        <dt>Changed</dt>
        <dd>{s.changed}</dd>
        {Object.entries(s.byKind).map(([kind, n]) => (
          <>
            <dt>{`Changed: ${kind}`}</dt>
            <dd>{n}</dd>
          </>
        ))}
        {Object.entries(s.decisions).map(([move, n]) => (
          <>
            <dt>{`Decision ${move}`}</dt>
            <dd>{n}</dd>
          </>
        ))}
        <dt>Need a model</dt>
        <dd>{s.needsModel}</dd>
        <dt>Model calls</dt>
        <dd>{`${s.modelCalls.recorded} recorded → ${s.modelCalls.replayed} replayed (${s.answeredFromRecording} answered from the recording, ${s.answeredByModel} by the model)`}</dd>
        <dt>Turn time p50 / p95</dt>
        <dd>{`recorded ${s.latency.recorded.p50} / ${s.latency.recorded.p95} ms → replayed ${s.latency.replayed.p50} / ${s.latency.replayed.p95} ms (estimate)`}</dd>
        <dt>Tool list changed</dt>
        <dd>{s.toolListChanged}</dd>
      </dl>
      <DataTable columns={['Turn', 'Result', 'Decision', 'Reply', 'Staged / asked', 'Model calls', 'Time']}>
        {report.turns.map((t) => (
          <tr id={`replay-turn-${t.turnId}`}>
            <td>
              <a href={`${BASE}/turns/${t.turnId}`}>{t.turnId}</a>
            </td>
            <td>
              {t.status === 'needs-model'
                ? `needs a model: ${t.needsModel ?? 'the request changed'}`
                : t.changes.length
                  ? `changed: ${t.changes.join(', ')}`
                  : 'unchanged'}
            </td>
            <td>
              {t.changes.includes('decision') || t.changes.includes('deciding-guardrail')
                ? `${outcomeText(t.before)} → ${outcomeText(t.after)}`
                : outcomeText(t.before)}
            </td>
            <td>{t.changes.includes('reply') ? `${t.before.reply} → ${t.after.reply}` : ''}</td>
            <td>
              {t.changes.includes('staged')
                ? `staged: ${t.before.staged.join('; ') || 'nothing'} → ${t.after.staged.join('; ') || 'nothing'}`
                : ''}
              {t.changes.includes('asks')
                ? ` asked: ${t.before.asks.join('; ') || 'nothing'} → ${t.after.asks.join('; ') || 'nothing'}`
                : ''}
            </td>
            <td>{`${t.before.modelCalls} → ${t.after.modelCalls} (${t.modelSource})`}</td>
            <td>{`${t.latency.recordedMs} → ${t.latency.replayedMs} ms`}</td>
          </tr>
        ))}
      </DataTable>
      {report.turns.length === 0 ? <p>No recorded turns match.</p> : null}
    </section>
  );
};
