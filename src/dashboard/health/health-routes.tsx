import { Hono } from 'hono';
import { z } from 'zod';
import { listDeadLetters } from '../../../outbox/dead-letters.js';
import { BASE, type DashboardContext } from '../dashboard-context.js';
import { loadTurnRecords, newestTurnIds } from '../data/turns.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import { BarChart } from './bar-chart.js';
import { healthStats } from './turn-stats.js';
import { DataTable } from '../pages/data-table.js';
import { readHourlyMetrics } from '../../../core/storage/turn-metrics.js';
import { healthWindows } from './metric-series.js';
import { HealthTrends } from './health-trends.js';

const TrendWindowSchema = z.enum(['24h', '7d']).catch('24h');
const WindowSchema = z.coerce.number().int().min(10).max(1000).catch(200);
const LABEL: Record<string, string> = {
  'no-tool': 'no tool',
  'staging-only': 'staging only',
  'read-then-reply': 'read, reply',
  deferred: 'deferred',
  other: 'other',
};

/** `/dashboard/health`: trends over 24 h and 7 days, latency per turn kind, deferred share, vetoes and escalations by guardrail, dead letters. */
export function healthRoutes() {
  const app = new Hono<DashboardContext>();
  app.get('/', async (c) => {
    const { tenantId } = c.get('dash');
    const n = WindowSchema.parse(c.req.query('n'));
    const redis = c.get('session');
    const { ids } = await newestTurnIds(redis, tenantId, n);
    const [records, deadLetters, hours] = await Promise.all([
      loadTurnRecords(redis, tenantId, ids),
      listDeadLetters(redis, tenantId, 50),
      readHourlyMetrics(redis, tenantId, Date.now(), 7 * 24),
    ]);
    const stats = healthStats(records);
    const open = deadLetters.filter((d) => d.currentState === 'dead' || d.currentState === 'unknown');
    return c.html(
      <Layout title="Health" section="health" dash={c.get('dash')} tenantName={c.get('tenant').config.displayName}>
        {c.req.query('redriven') ? (
          <Notice kind={c.req.query('redriven') === 'ok' ? 'ok' : 'error'}>
            {c.req.query('redriven') === 'ok'
              ? 'Re-driven: the action was put back and delivered again.'
              : `Re-drive: ${c.req.query('redriven')!.slice(0, 300)}`}
          </Notice>
        ) : null}
        <HealthTrends windows={healthWindows(hours)} shown={TrendWindowSchema.parse(c.req.query('window'))} />
        <h2>The newest turns</h2>
        <form method="get" action={`${BASE}/health`} class="actions">
          <label for="n">Turns to look at</label>
          <input id="n" name="n" type="number" min="10" max="1000" value={String(n)} />
          <button type="submit">Show</button>
        </form>
        <p>
          The last {stats.turns} turns: {stats.decisions.pass} passed, {stats.decisions.veto} vetoed,{' '}
          {stats.decisions.escalate} escalated, {stats.decisions.error} failed. Deferred share:{' '}
          <strong>{(stats.deferredShare * 100).toFixed(1)} %</strong> (answered at the deadline, finished in the
          background).
        </p>
        <div class="charts">
          <section aria-labelledby="lat">
            <h2 id="lat">Latency per turn kind</h2>
            <BarChart
              title="Latency per turn kind (ms)"
              series={['p50', 'p95']}
              unit="ms"
              bars={stats.byKind
                .filter((k) => k.count)
                .map((k) => ({ label: `${LABEL[k.kind]} (${k.count})`, values: [k.p50, k.p95] }))}
            />
            <table>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Turns</th>
                  <th scope="col">p50</th>
                  <th scope="col">p95</th>
                </tr>
              </thead>
              <tbody>
                {stats.byKind.map((k) => (
                  <tr>
                    <td>{LABEL[k.kind]}</td>
                    <td>{k.count}</td>
                    <td>{k.p50} ms</td>
                    <td>{k.p95} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section aria-labelledby="guard">
            <h2 id="guard">Vetoes and escalations by guardrail</h2>
            {stats.byGuardrail.length ? (
              <BarChart
                title="Vetoes and escalations by guardrail"
                series={['veto', 'escalate']}
                unit=""
                bars={stats.byGuardrail.map((g) => ({ label: g.guardrail, values: [g.veto, g.escalate] }))}
              />
            ) : (
              <p>No guardrail vetoed or escalated a turn.</p>
            )}
            <table>
              <thead>
                <tr>
                  <th scope="col">Guardrail</th>
                  <th scope="col">Vetoes</th>
                  <th scope="col">Escalations</th>
                </tr>
              </thead>
              <tbody>
                {stats.byGuardrail.map((g) => (
                  <tr>
                    <td>{g.guardrail}</td>
                    <td>{g.veto}</td>
                    <td>{g.escalate}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </div>
        <section aria-labelledby="dead">
          <h2 id="dead">Dead letters</h2>
          <p>
            {open.length} actions dead or with an unknown outcome (of the newest {deadLetters.length} listed).{' '}
            <a href={`${BASE}/audit`}>Audit log</a>
          </p>
          <DataTable columns={['When', 'Action', 'State', 'Why', 'Turn', 'Re-drive']}>
            {deadLetters.map((d) => (
              <tr>
                <td>{d.at.replace('T', ' ').slice(0, 19)}</td>
                <td>{d.summary}</td>
                <td>
                  <span class={`badge ${d.currentState ?? d.state}`}>{d.currentState ?? d.state}</span>
                </td>
                <td>{d.detail}</td>
                <td>
                  {d.turnId.startsWith('turn_') ? <a href={`${BASE}/turns/${d.turnId}`}>{d.turnId}</a> : d.turnId}
                </td>
                <td>
                  {d.currentState === 'dead' || d.currentState === 'unknown' ? (
                    <form method="post" action={`${BASE}/dead-letters/redrive`}>
                      <CsrfField token={c.get('dash').csrf} />
                      <input type="hidden" name="entryId" value={d.entryId ?? d.turnId} />
                      <input type="hidden" name="actionId" value={d.actionId} />
                      {d.currentState === 'unknown' && !d.idempotent ? (
                        <label class="check">
                          <input type="checkbox" name="sendAnyway" value="yes" /> send anyway (the contact may get it
                          twice)
                        </label>
                      ) : null}
                      <button type="submit">{`Re-drive ${d.summary}`}</button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        </section>
      </Layout>,
    );
  });
  return app;
}
