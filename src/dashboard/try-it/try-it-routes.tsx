import { Hono } from 'hono';
import { z } from 'zod';
import { ContactIdSchema } from '../../../core/storage/keys.js';
import { waitUntilOf } from '../../http/wait-until.js';
import { appendAudit } from '../../tenants/audit-log.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE, type DashboardContext } from '../dashboard-context.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import { runTrial, type TrialResult } from './run-trial.js';
import type { FC } from 'hono/jsx';

export const DEFAULT_TEST_CONTACT = 'dashboard-test';

const TrialFormSchema = z.object({
  text: z.string().trim().min(1, 'write a message').max(2000, 'at most 2,000 characters'),
  contactId: ContactIdSchema.and(z.string().regex(/^[A-Za-z0-9_.:@-]{1,100}$/, 'letters, digits and _ . : @ - only')),
  perform: z.literal('yes').optional(),
});

const TryPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  text: string;
  contactId: string;
  errors: Record<string, string>;
  result?: TrialResult;
}> = ({ dash, tenantName, text, contactId, errors, result }) => (
  <Layout title="Try it" section="try" dash={dash} tenantName={tenantName}>
    <p class="muted">
      Send a message as a test contact through the real turn: the same prompt, model, tools and guardrails. Unless you
      tick "perform", nothing is committed or sent.
    </p>
    <form method="post" action={`${BASE}/try`} class="card">
      <CsrfField token={dash.csrf} />
      <label for="try-text">Message</label>
      <textarea
        id="try-text"
        name="text"
        aria-invalid={errors.text ? 'true' : undefined}
        aria-describedby={errors.text ? 'try-text-error' : undefined}
      >
        {text}
      </textarea>
      {errors.text ? (
        <p id="try-text-error" class="error">
          {errors.text}
        </p>
      ) : null}
      <label for="try-contact">Test contact id</label>
      <input
        id="try-contact"
        name="contactId"
        type="text"
        value={contactId}
        aria-invalid={errors.contactId ? 'true' : undefined}
        aria-describedby={errors.contactId ? 'try-contact-error' : undefined}
      />
      {errors.contactId ? (
        <p id="try-contact-error" class="error">
          {errors.contactId}
        </p>
      ) : null}
      <label class="check" for="try-perform">
        <input id="try-perform" type="checkbox" name="perform" value="yes" /> Perform: commit the turn and send its
        reply and actions to the test contact
      </label>
      <div class="actions">
        <button type="submit">Send</button>
      </div>
    </form>
    {result ? <TrialView result={result} /> : null}
  </Layout>
);

const TrialView: FC<{ result: TrialResult }> = ({ result }) => (
  <section aria-labelledby="result" class="card">
    <h2 id="result">Result</h2>
    {result.mode === 'refused' ? (
      <Notice kind="error">
        This tenant is suspended: nothing was run, committed or performed. A dry run still shows what the turn would do.
      </Notice>
    ) : result.mode === 'dry' ? (
      <Notice kind="info">Dry run: nothing was committed or performed.</Notice>
    ) : result.wouldCommit.length ? (
      // Committed is not arrived: ManyChat may still refuse an action. The turn page shows each one's delivery.
      <Notice kind="info">{`Committed for the test contact: ${result.wouldCommit.length} action${result.wouldCommit.length === 1 ? '' : 's'} sent to ManyChat in the background. Open the turn to see whether each arrived.`}</Notice>
    ) : (
      <Notice kind="info">Committed for the test contact, with no action to deliver.</Notice>
    )}
    <p>
      Decision: <span class={`badge ${result.decision}`}>{result.decision}</span> — {result.reason}
    </p>
    <p>
      Reply: <q id="try-reply">{result.reply}</q>
    </p>
    <h3>Staged</h3>
    <ul>
      {result.staged.map((a) => (
        <li>
          {a.summary} <span class="badge">{a.gate === 'none' ? 'no gate' : a.gate}</span>
        </li>
      ))}
    </ul>
    {result.staged.length === 0 ? <p>Nothing staged.</p> : null}
    <p>
      {result.mode === 'dry' ? 'Would commit' : 'Committed'}:{' '}
      {result.wouldCommit.map((a) => a.summary).join('; ') || 'nothing'} · waiting for a gate:{' '}
      {result.wouldPin.map((a) => a.summary).join('; ') || 'nothing'}
    </p>
    <h3>Guardrail verdicts</h3>
    <ul>
      {result.verdicts.map((v) => (
        <li>
          {v.guardrail}: <span class={`badge ${v.outcome}`}>{v.outcome}</span> {v.reason}
        </li>
      ))}
    </ul>
    <p class="muted">
      {result.steps.length} model call{result.steps.length === 1 ? '' : 's'}:{' '}
      {result.steps.map((s) => `${s.ms} ms`).join(', ')}
    </p>
    {result.mode !== 'dry' ? (
      <p>
        <a href={`${BASE}/turns/${result.turnId}`}>Open the turn</a>
      </p>
    ) : null}
  </section>
);

/** `/dashboard/try`. */
export function tryItRoutes() {
  const app = new Hono<DashboardContext>();
  app.get('/', (c) =>
    c.html(
      <TryPage
        dash={c.get('dash')}
        tenantName={c.get('tenant').config.displayName}
        text=""
        contactId={DEFAULT_TEST_CONTACT}
        errors={{}}
      />,
    ),
  );
  app.post('/', async (c) => {
    const form = await c.req.parseBody();
    const parsed = TrialFormSchema.safeParse(form);
    const text = typeof form.text === 'string' ? form.text : '';
    const contactId = typeof form.contactId === 'string' ? form.contactId : DEFAULT_TEST_CONTACT;
    const common = { dash: c.get('dash'), tenantName: c.get('tenant').config.displayName, text, contactId };
    if (!parsed.success) {
      const errors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? 'text'), i.message]));
      return c.html(<TryPage {...common} errors={errors} />, 400);
    }
    // A performed trial goes to ManyChat, whose subscriber ids are numbers: any other id is refused
    // there, so the run is refused here, before anything is committed or promised.
    if (parsed.data.perform === 'yes' && !/^\d{1,20}$/.test(parsed.data.contactId)) {
      return c.html(
        <TryPage
          {...common}
          errors={{
            contactId: `To perform, use a real ManyChat subscriber id (digits only; in ManyChat: Contacts → a contact → its ID). ManyChat would refuse "${parsed.data.contactId}" and nothing would arrive.`,
          }}
        />,
        400,
      );
    }
    const tenant = c.get('tenant');
    const result = await runTrial(
      c.get('services'),
      c.get('session'),
      { config: tenant.config, status: tenant.meta.status },
      { contactId: parsed.data.contactId, text: parsed.data.text, perform: parsed.data.perform === 'yes' },
      waitUntilOf(c),
    );
    if (result.mode === 'refused') return c.html(<TryPage {...common} errors={{}} result={result} />, 409);
    if (result.mode !== 'dry')
      await appendAudit(c.get('session'), c.get('dash').tenantId, {
        actor: `dashboard:${c.get('dash').user}`,
        action: 'try-it.performed',
        detail: `turn ${result.turnId} for test contact ${parsed.data.contactId}`,
      });
    return c.html(<TryPage {...common} errors={{}} result={result} />);
  });
  return app;
}
