import { Hono } from 'hono';
import type { LanguageModel } from 'ai';
import { appendAudit } from '../../tenants/audit-log.js';
import { runReplay } from '../../replay/run-replay.js';
import { ModelUnavailableError } from '../../models/model-availability.js';
import type { DashboardContext } from '../dashboard-context.js';
import { echoOf, parseReplayForm } from './replay-form.js';
import { ReplayPage } from './replay-page.js';

/**
 * `/dashboard/replay`. The tenant is the session's: turns are read under its key prefix only,
 * and a pasted config naming another tenant is refused. A run is rate-limited per tenant
 * (src/replay/replay-limit.ts): over the limit it answers 429 with Retry-After. The replay has no
 * commit stage, so nothing reaches the outbox, QStash or a channel API.
 */
export function replayRoutes() {
  const app = new Hono<DashboardContext>();
  app.get('/', (c) => {
    const { config } = c.get('tenant');
    // `?ids=` (from a turn's page) fills the ids field; the POST validates them like typed ones.
    const ids = (c.req.query('ids') ?? '').slice(0, 2000);
    return c.html(
      <ReplayPage
        dash={c.get('dash')}
        tenantName={config.displayName}
        values={{ config: JSON.stringify(config, null, 2), limit: '50', ids }}
        errors={{}}
      />,
    );
  });
  app.post('/', async (c) => {
    const form = await c.req.parseBody();
    const { tenantId, user } = c.get('dash');
    const common = { dash: c.get('dash'), tenantName: c.get('tenant').config.displayName, values: echoOf(form) };
    const parsed = parseReplayForm(form, tenantId);
    if (!parsed.ok) return c.html(<ReplayPage {...common} errors={parsed.errors} />, 400);
    let model: LanguageModel | undefined;
    if (parsed.useModel) {
      try {
        model = c.get('services').model(parsed.candidate).model;
      } catch (err) {
        if (!(err instanceof ModelUnavailableError)) throw err;
        return c.html(
          <ReplayPage
            {...common}
            errors={{}}
            refusal="No model is available to this deployment: replay without one (changed requests are reported as needing a model)."
          />,
          503,
        );
      }
    }
    const run = await runReplay(
      {
        session: c.get('session'),
        guardrails: c.get('services').guardrails,
        limited: true,
        ...(model ? { model } : {}),
      },
      tenantId,
      parsed.filter,
      parsed.candidate,
    );
    if (!run.ok) {
      if (run.refused.kind === 'limited') c.header('Retry-After', String(run.refused.retryAfterSeconds));
      return c.html(
        <ReplayPage {...common} errors={{}} refusal={`Refused: ${run.refused.message}.`} />,
        run.refused.kind === 'limited' ? 429 : 400,
      );
    }
    const s = run.report.summary;
    await appendAudit(c.get('session'), tenantId, {
      actor: `dashboard:${user}`,
      action: 'replay.run',
      detail: `${s.replayed} turns replayed: ${s.changed} changed, ${s.needsModel} need a model`,
    });
    return c.html(<ReplayPage {...common} errors={{}} report={run.report} />);
  });
  return app;
}
