import type { FC } from 'hono/jsx';
import type { TurnRecord } from '../../../core/turn-record.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import { deliveryStateOf, type EntryDelivery } from '../data/turns.js';
import { CsrfField, Layout, Notice } from './layout.js';
import { DataTable } from './data-table.js';
import { contactHref } from './contact.js';

const json = (value: unknown) => JSON.stringify(value, null, 1);

export const TurnPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  turn: TurnRecord;
  deliveries: EntryDelivery[];
  notice?: { kind: 'ok' | 'error'; text: string } | undefined;
  inHandoffUntil: string | null;
}> = ({ dash, tenantName, turn, deliveries, notice, inHandoffUntil }) => (
  <Layout title={`Turn ${turn.turnId}`} section="turns" dash={dash} tenantName={tenantName}>
    {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
    <section aria-labelledby="inbound">
      <h2 id="inbound">Inbound</h2>
      <p>
        Contact <a href={contactHref(turn.contactId)}>{turn.contactId}</a> (whole conversation) on{' '}
        {turn.inbound.channel}, {turn.startedAt}
        {turn.deferred ? ' · deferred (answered at the deadline, finished in the background)' : ''}
      </p>
      <blockquote>
        {turn.inbound.text ?? (turn.inbound.callback ? `button press: ${turn.inbound.callback.answer}` : '(no text)')}
      </blockquote>
    </section>
    <section aria-labelledby="decision">
      <h2 id="decision">Decision</h2>
      <p>
        <span class={`badge ${turn.decision}`}>{turn.decision}</span> — {turn.decisionReason}
      </p>
      <p>
        Reply sent: <q>{turn.reply.text}</q>
      </p>
      <p>
        <a href={`${BASE}/replay?ids=${encodeURIComponent(turn.turnId)}`}>Replay this turn with another config</a>
      </p>
      {inHandoffUntil ? (
        <form method="post" action={`${contactHref(turn.contactId)}/release`} class="card">
          <CsrfField token={dash.csrf} />
          <input type="hidden" name="turnId" value={turn.turnId} />
          <p>This contact is with a human until {inHandoffUntil}: the agent stays silent for them.</p>
          <button type="submit">Release: let the agent answer this contact again</button>
        </form>
      ) : null}
      <p class="muted">
        Total {turn.timings.totalMs} ms · model {turn.timings.modelMs} ms · guardrails {turn.timings.guardrailsMs} ms ·
        commit {turn.timings.commitMs} ms · model {turn.modelId}
      </p>
    </section>
    <section aria-labelledby="verdicts">
      <h2 id="verdicts">Guardrail verdicts</h2>
      <DataTable columns={['Guardrail', 'Verdict', 'Reason', 'Time']}>
        {turn.verdicts.map((v) => (
          <tr>
            <td>{v.guardrail}</td>
            <td>
              <span class={`badge ${v.outcome}`}>{v.outcome}</span>
            </td>
            <td>{v.reason}</td>
            <td>{v.ms} ms</td>
          </tr>
        ))}
      </DataTable>
      {turn.verdicts.length === 0 ? <p>The guardrails did not run ({turn.decisionReason}).</p> : null}
    </section>
    <section aria-labelledby="steps">
      <h2 id="steps">Model steps</h2>
      {turn.steps.map((s) => (
        <details open>
          <summary>
            Step {s.step}: {s.ms} ms, {s.toolCalls.length} tool calls, finish {s.finishReason}
          </summary>
          <ul>
            {s.toolCalls.map((call) => {
              const result = s.toolResults.find((r) => r.toolCallId === call.toolCallId);
              return (
                <li>
                  <code>{`${call.toolName}(${JSON.stringify(call.input)})`}</code>
                  {result ? (
                    <>
                      {' '}
                      → <span class="badge">{result.status}</span> <pre>{json(result.output).slice(0, 2000)}</pre>
                    </>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </details>
      ))}
      {turn.steps.length === 0 ? <p>No model call.</p> : null}
    </section>
    <section aria-labelledby="staged">
      <h2 id="staged">Staged actions</h2>
      <ul>
        {turn.staged.map((a) => (
          <li>
            {a.summary} <span class="badge">{a.gate === 'none' ? 'no gate' : a.gate}</span>{' '}
            <code>{`${a.tool}(${JSON.stringify(a.args)})`}</code>
          </li>
        ))}
      </ul>
      {turn.staged.length === 0 ? <p>Nothing was staged.</p> : null}
      {turn.pendingConfirmation ? <p>Waiting for the contact's confirmation: {turn.pendingConfirmation}</p> : null}
      {turn.approvals.length ? (
        <p>
          Waiting for approval: {turn.approvals.join(', ')} (<a href={`${BASE}/approvals`}>approvals</a>)
        </p>
      ) : null}
    </section>
    <section aria-labelledby="delivery">
      <h2 id="delivery">Committed and delivered</h2>
      {deliveries.length === 0 ? <p>Nothing was committed for this turn.</p> : null}
      {deliveries.map((d) => (
        <DataTable
          columns={['Action', 'Delivery', 'Attempts', 'Detail', 'Re-drive']}
          caption={<>Outbox entry {d.entry.turnId}</>}
        >
          {d.entry.actions.map((a) => {
            const row = d.rows.get(a.id) ?? null;
            const state = deliveryStateOf(row);
            return (
              <tr>
                <td>{a.summary}</td>
                <td>
                  <span class={`badge ${state}`}>{state}</span>
                </td>
                <td>{row?.attempts ?? 0}</td>
                <td>{row?.detail ?? ''}</td>
                <td>
                  {state === 'dead' || state === 'unknown' ? (
                    <form method="post" action={`${BASE}/turns/${turn.turnId}/redrive`}>
                      <CsrfField token={dash.csrf} />
                      <input type="hidden" name="entryId" value={d.entry.turnId} />
                      <input type="hidden" name="actionId" value={a.id} />
                      {state === 'unknown' ? (
                        <label class="check">
                          <input type="checkbox" name="sendAnyway" value="yes" /> send anyway (the contact may get it
                          twice)
                        </label>
                      ) : null}
                      <button type="submit">Re-drive</button>
                    </form>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      ))}
    </section>
    {turn.notes.length ? (
      <section aria-labelledby="notes">
        <h2 id="notes">Notes</h2>
        <ul>
          {turn.notes.map((n) => (
            <li>{n}</li>
          ))}
        </ul>
      </section>
    ) : null}
  </Layout>
);
