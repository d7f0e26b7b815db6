import type { FC } from 'hono/jsx';
import type { TurnRecord } from '../../../core/turn-record.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import type { TurnQuery } from '../data/turns.js';
import type { TurnDelivery } from '../data/turn-delivery.js';
import { Layout } from './layout.js';
import { DataTable } from './data-table.js';
import { contactHref } from './contact.js';

/** A count per delivery state ("1 performed · 1 dead"), or a dash when nothing was committed. */
const DeliveryCell: FC<{ line: TurnDelivery | undefined }> = ({ line }) =>
  !line || line.total === 0 ? (
    <span class="muted">nothing committed</span>
  ) : (
    <span class="delivery">
      {line.counts.map((c, i) => (
        <>
          {i > 0 ? ' · ' : ''}
          {c.n} <span class={`badge ${c.state}`}>{c.state}</span>
        </>
      ))}
    </span>
  );

const DECISIONS = ['', 'pass', 'veto', 'escalate', 'error'] as const;

function pageLink(query: TurnQuery, offset: number): string {
  const params = new URLSearchParams({
    ...(query.q ? { q: query.q } : {}),
    ...(query.decision ? { decision: query.decision } : {}),
    ...(query.delivery ? { delivery: query.delivery } : {}),
    offset: String(offset),
  });
  return `${BASE}/turns?${params.toString()}`;
}

export const TurnsPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  query: TurnQuery;
  turns: TurnRecord[];
  more: boolean;
  total: number;
  delivery: ReadonlyMap<string, TurnDelivery>;
}> = ({ dash, tenantName, query, turns, more, total, delivery }) => (
  <Layout title="Turns" section="turns" dash={dash} tenantName={tenantName}>
    <form method="get" action={`${BASE}/turns`} role="search" class="card">
      <label for="q">Search (contact id, words of the message or reply, turn id)</label>
      <input id="q" name="q" type="search" value={query.q} />
      <label for="decision">Decision</label>
      <select id="decision" name="decision">
        {DECISIONS.map((d) => (
          <option value={d} selected={d === query.decision}>
            {d || 'any'}
          </option>
        ))}
      </select>
      <label for="delivery">Delivery</label>
      <select id="delivery" name="delivery">
        <option value="" selected={query.delivery === ''}>
          any
        </option>
        <option value="not-arrived" selected={query.delivery === 'not-arrived'}>
          actions that did not arrive (dead, unknown, retrying)
        </option>
      </select>
      <div class="actions">
        <button type="submit">Search</button>
      </div>
    </form>
    <p class="muted">
      {total} turns in the log{query.q || query.decision || query.delivery ? ' (a search reads the newest 500)' : ''}.
    </p>
    <DataTable
      columns={['Time', 'Contact', 'Channel', 'Message', 'Decision', 'Delivery', 'Deferred', 'Latency', 'Model calls']}
      caption="Newest first"
      captionClass="muted"
    >
      {turns.map((t) => (
        <tr>
          <td>
            <a href={`${BASE}/turns/${t.turnId}`}>{t.startedAt.replace('T', ' ').slice(0, 19)}</a>
          </td>
          <td>
            <a href={contactHref(t.contactId)} aria-label={`Conversation with ${t.contactId}`}>
              {t.contactId}
            </a>
          </td>
          <td>{t.inbound.channel}</td>
          <td>{(t.inbound.text ?? (t.inbound.callback ? `button: ${t.inbound.callback.answer}` : '')).slice(0, 80)}</td>
          <td>
            <span class={`badge ${t.decision}`}>{t.decision}</span>
          </td>
          <td>
            <DeliveryCell line={delivery.get(t.turnId)} />
          </td>
          <td>{t.deferred ? 'yes' : 'no'}</td>
          <td>{t.timings.totalMs} ms</td>
          <td>{t.steps.length}</td>
        </tr>
      ))}
    </DataTable>
    {turns.length === 0 ? <p>No turns match.</p> : null}
    <nav aria-label="Pages" class="actions">
      {query.offset > 0 ? <a href={pageLink(query, Math.max(0, query.offset - query.limit))}>← Newer</a> : null}
      {more ? <a href={pageLink(query, query.offset + query.limit)}>Older →</a> : null}
    </nav>
  </Layout>
);
