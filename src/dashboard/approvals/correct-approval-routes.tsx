import { Hono, type Context } from 'hono';
import { approveWithChanges, auditCorrection } from '../../approvals/correct-approval.js';
import { tenantWords } from '../../../core/tenant/tenant-words.js';
import { BASE, type DashboardContext } from '../dashboard-context.js';
import { APPROVAL_ID, approvalCards, type ApprovalCard } from '../data/approvals.js';
import { ApprovalsPage } from '../pages/approvals.js';
import { argumentFields, CorrectApprovalPage } from './correct-approval-page.js';
import { sessionSecrets } from '../../env.js';

/** The form's `arg.<name>` fields back into arguments, each typed like the pinned value it replaces. */
export function argsFromForm(card: ApprovalCard, form: Record<string, unknown>): Record<string, unknown> {
  const pinned = JSON.parse(card.args) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name] of argumentFields(card.args)) {
    const raw = form[`arg.${name}`];
    const text = typeof raw === 'string' ? raw.trim() : '';
    const before = pinned[name];
    if (typeof before === 'number') out[name] = text === '' ? NaN : Number(text);
    else if (typeof before === 'boolean') out[name] = text === 'true';
    else out[name] = text;
  }
  return out;
}

const actor = (user: string) => `dashboard:${user}`;

/** `/dashboard/approvals/:id/correct`: the form, and the correction (reject + new pinned row, approved once). */
export function correctApprovalRoutes() {
  const app = new Hono<DashboardContext>();
  const page = (c: Context<DashboardContext>) => ({
    dash: c.get('dash'),
    tenantName: c.get('tenant').config.displayName,
  });
  const pendingCard = async (c: Context<DashboardContext>, id: string) =>
    APPROVAL_ID.test(id)
      ? (await approvalCards(c.get('session'), c.get('dash').tenantId, c.get('tenant').config)).find(
          (a) => a.id === id && a.shownStatus === 'pending',
        )
      : undefined;

  app.get('/:id/correct', async (c) => {
    const card = await pendingCard(c, c.req.param('id'));
    if (!card) return c.html(<ApprovalsPage {...page(c)} cards={[]} result="already-decided" />, 404);
    return c.html(<CorrectApprovalPage {...page(c)} card={card} />);
  });

  app.post('/:id/correct', async (c) => {
    const { tenantId, user } = c.get('dash');
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const card = await pendingCard(c, id);
    if (!card) return c.redirect(`${BASE}/approvals?result=already-decided`, 303);
    if (form.confirm !== 'yes') return c.redirect(`${BASE}/approvals/${id}/correct`, 303);
    if (c.get('tenant').meta.status === 'suspended') return c.redirect(`${BASE}/approvals?result=suspended`, 303);
    const args = argsFromForm(card, form);
    const values = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)]));
    const services = c.get('services');
    const { config } = c.get('tenant');
    const outcome = await approveWithChanges(
      {
        session: c.get('session'),
        publisher: services.publisher(),
        pinSecret: sessionSecrets(services.env),
        now: new Date(),
        words: (locale) => tenantWords(config, locale),
        config,
        author: actor(user),
      },
      tenantId,
      id,
      args,
    );
    switch (outcome.result) {
      case 'invalid':
        return c.html(<CorrectApprovalPage {...page(c)} card={card} values={values} problem={outcome.problem} />, 400);
      case 'approved':
      case 'superseded':
        await auditCorrection(c.get('session'), tenantId, actor(user), outcome, `${card.tool}(${card.args})`);
        return c.redirect(
          `${BASE}/approvals?result=${outcome.result === 'approved' ? 'corrected' : 'corrected-superseded'}`,
          303,
        );
      default:
        return c.redirect(`${BASE}/approvals?result=${outcome.result}`, 303);
    }
  });
  return app;
}
