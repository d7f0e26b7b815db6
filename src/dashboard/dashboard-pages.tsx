import { tenantWords } from '../../core/tenant/tenant-words.js';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { KeyIdSchema } from '../../core/storage/keys.js';
import { handoffUntil, listWaitingContacts, releaseHandoff } from '../../core/storage/handoffs.js';
import { loadTurnRecords, newestTurnIdOfContacts } from '../../core/storage/turn-records.js';
import { takeThreadBack } from '../tenants/take-thread-back.js';
import { loadConversation } from './data/contact-conversation.js';
import { ContactPage, contactHref } from './pages/contact.js';
import { HandoffsPage } from './pages/handoffs.js';
import { redriveDeadLetter } from '../../outbox/dead-letters.js';
import { deliverTenantEntry } from '../tenants/deliver-tenant-entry.js';
import { decideApproval } from '../approvals/decide-approval.js';
import { appendAudit, readAudit } from '../tenants/audit-log.js';
import { AuditPage } from './pages/audit.js';
import { BASE, type DashboardContext } from './dashboard-context.js';
import { APPROVAL_ID, approvalCards } from './data/approvals.js';
import { loadDeliveries, loadTurn, searchTurns, type TurnQuery } from './data/turns.js';
import { ApprovalsPage, ConfirmApprovalPage } from './pages/approvals.js';
import { TurnPage } from './pages/turn.js';
import { TurnsPage } from './pages/turns.js';
import { setupRoutes } from './setup/setup-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { tryItRoutes } from './try-it/try-it-routes.js';
import { apiReferenceRoutes } from './api-reference/api-reference-routes.js';
import { replayRoutes } from './replay/replay-routes.js';
import { correctApprovalRoutes } from './approvals/correct-approval-routes.js';
import { correctionsOf } from '../approvals/pinned-store.js';
import { sessionSecrets } from '../env.js';

const actor = (user: string) => `dashboard:${user}`;

const TurnQuerySchema = z.object({
  q: z.string().max(200).default(''),
  decision: z.enum(['', 'pass', 'veto', 'escalate', 'error']).catch(''),
  delivery: z.enum(['', 'not-arrived']).catch(''),
  offset: z.coerce.number().int().min(0).max(100_000).catch(0),
});

const RedriveFormSchema = z.object({
  entryId: KeyIdSchema,
  actionId: KeyIdSchema,
  sendAnyway: z.literal('yes').optional(),
});

/** Re-drives one dead or unknown action of the session's tenant and delivers it now; 'ok' or why not. */
async function redrive(c: Context<DashboardContext>, form: z.infer<typeof RedriveFormSchema>): Promise<string> {
  const { tenantId, user } = c.get('dash');
  const services = c.get('services');
  const session = c.get('session');
  const redriven = await redriveDeadLetter({
    session,
    publisher: services.publisher(),
    tenantId,
    turnId: form.entryId,
    actionId: form.actionId,
    sendAnyway: form.sendAnyway === 'yes',
  });
  if (!redriven.ok) return redriven.error;
  await appendAudit(session, tenantId, {
    actor: actor(user),
    action: 'dead-letter.redriven',
    detail: `${form.entryId}/${form.actionId}${form.sendAnyway ? ' (send anyway)' : ''}`,
  });
  // Delivered now, so the page can say what became of it (a concurrent QStash delivery finds the lease taken or the work done).
  // An approved or confirmed action is checked against the setup as it is now, as every delivery is.
  const delivery = await deliverTenantEntry(services, session, c.get('tenant'), form.entryId);
  const action = delivery.actions.find((a) => a.id === form.actionId);
  if (action && (action.state === 'dead' || action.state === 'unknown'))
    return `re-driven, and ${action.state} again${action.detail ? `: ${action.detail}` : ''}`;
  return 'ok';
}

/** What a release redirect's `released=` says, as a notice: yes, no (not in a handoff), or the thread not taken back. */
function releaseNotice(released: string | undefined): { kind: 'ok' | 'error'; text: string } | undefined {
  if (!released) return undefined;
  if (released === 'yes') return { kind: 'ok', text: 'Released: the agent answers this contact again.' };
  if (released === 'no') return { kind: 'error', text: 'The contact was not in a handoff.' };
  if (released.startsWith('thread:'))
    return {
      kind: 'error',
      text: `Released, but the Messenger thread was not taken back: ${released.slice(7, 300)}. The agent answers again once the Page Inbox passes the thread back.`,
    };
  return undefined;
}

/** The outbox entries a turn owns: its own, its approvals' and confirmation's, and those of approvals correcting its approvals. */
async function ownedEntryIds(
  c: Context<DashboardContext>,
  turn: { turnId: string; approvals: string[]; pendingConfirmation: string | null },
): Promise<string[]> {
  const corrected = await correctionsOf(c.get('session'), c.get('dash').tenantId, turn.approvals);
  return [
    turn.turnId,
    ...turn.approvals,
    ...corrected.values(),
    ...(turn.pendingConfirmation ? [turn.pendingConfirmation] : []),
  ];
}

/** The pages behind the login. Every read and write names `c.get('dash').tenantId`, nothing else. */
export function dashboardPages() {
  const app = new Hono<DashboardContext>();
  const page = (c: Context<DashboardContext>) => ({
    dash: c.get('dash'),
    tenantName: c.get('tenant').config.displayName,
  });

  app.route('/setup', setupRoutes());
  app.route('/health', healthRoutes());
  app.route('/try', tryItRoutes());
  app.route('/replay', replayRoutes());
  app.route('/api', apiReferenceRoutes());
  app.route('/approvals', correctApprovalRoutes());

  app.get('/approvals', async (c) => {
    const cards = await approvalCards(c.get('session'), c.get('dash').tenantId, c.get('tenant').config);
    return c.html(<ApprovalsPage {...page(c)} cards={cards} result={c.req.query('result')} />);
  });
  app.get('/approvals/:id/confirm', async (c) => {
    const id = c.req.param('id');
    const card = APPROVAL_ID.test(id)
      ? (await approvalCards(c.get('session'), c.get('dash').tenantId, c.get('tenant').config)).find((a) => a.id === id)
      : undefined;
    if (!card) return c.html(<ApprovalsPage {...page(c)} cards={[]} result="not-found" />, 404);
    if (card.shownStatus !== 'pending')
      return c.redirect(
        `${BASE}/approvals?result=${card.shownStatus === 'expired' ? 'expired' : 'already-decided'}`,
        303,
      );
    return c.html(<ConfirmApprovalPage {...page(c)} card={card} />);
  });
  for (const action of ['approve', 'reject'] as const) {
    app.post(`/approvals/:id/${action}`, async (c) => {
      const id = c.req.param('id');
      const { tenantId, user } = c.get('dash');
      if (!APPROVAL_ID.test(id)) return c.redirect(`${BASE}/approvals?result=not-found`, 303);
      // Approve performs something: it needs the confirm step's field, so a stray click cannot.
      if (action === 'approve' && (await c.req.parseBody()).confirm !== 'yes')
        return c.redirect(`${BASE}/approvals/${id}/confirm`, 303);
      // A suspended tenant performs nothing new; its outbox only drains what was committed before.
      if (action === 'approve' && c.get('tenant').meta.status === 'suspended')
        return c.redirect(`${BASE}/approvals?result=suspended`, 303);
      const services = c.get('services');
      const { config } = c.get('tenant');
      const outcome = await decideApproval(
        {
          session: c.get('session'),
          publisher: services.publisher(),
          pinSecret: sessionSecrets(services.env),
          now: new Date(),
          config,
          words: (locale) => tenantWords(config, locale),
        },
        tenantId,
        id,
        action,
      );
      if (outcome.result === 'approved' || outcome.result === 'rejected' || outcome.result === 'refused')
        await appendAudit(c.get('session'), tenantId, {
          actor: actor(user),
          action: `approval.${outcome.result}`,
          detail: `approval ${id}: ${outcome.result}${outcome.result === 'refused' ? ` (${outcome.problem})` : ''}`,
        });
      return c.redirect(`${BASE}/approvals?result=${outcome.result}`, 303);
    });
  }

  app.get('/turns', async (c) => {
    const parsed = TurnQuerySchema.safeParse(c.req.query());
    const query: TurnQuery = {
      ...(parsed.success ? parsed.data : { q: '', decision: '', delivery: '', offset: 0 }),
      limit: 25,
    };
    const result = await searchTurns(c.get('session'), c.get('dash').tenantId, query);
    return c.html(<TurnsPage {...page(c)} query={query} {...result} />);
  });
  app.get('/turns/:turnId', async (c) => {
    const tenantId = c.get('dash').tenantId;
    const turn = await loadTurn(c.get('session'), tenantId, c.req.param('turnId'));
    if (!turn) return c.text('No such turn for this tenant.', 404);
    const deliveries = await loadDeliveries(c.get('session'), tenantId, await ownedEntryIds(c, turn));
    const inHandoffUntil = await handoffUntil(c.get('session'), tenantId, turn.contactId);
    const redriven = c.req.query('redriven');
    const notice = redriven
      ? redriven === 'ok'
        ? { kind: 'ok' as const, text: 'Re-driven: the action was put back and delivered again.' }
        : { kind: 'error' as const, text: `Re-drive: ${redriven.slice(0, 300)}` }
      : undefined;
    const shown = notice ?? releaseNotice(c.req.query('released'));
    return c.html(
      <TurnPage {...page(c)} turn={turn} deliveries={deliveries} notice={shown} inHandoffUntil={inHandoffUntil} />,
    );
  });
  app.post('/dead-letters/redrive', async (c) => {
    const form = RedriveFormSchema.safeParse(await c.req.parseBody());
    if (!form.success)
      return c.redirect(`${BASE}/health?redriven=${encodeURIComponent('the form is missing the action')}`, 303);
    // Keys are read under the session's tenant only: an id of another tenant's entry finds nothing.
    const outcome = await redrive(c, form.data);
    return c.redirect(`${BASE}/health?redriven=${encodeURIComponent(outcome)}`, 303);
  });
  app.get('/handoffs', async (c) => {
    const { tenantId } = c.get('dash');
    const session = c.get('session');
    const waiting = await listWaitingContacts(session, tenantId, Date.now());
    const lastIds = await newestTurnIdOfContacts(
      session,
      tenantId,
      waiting.map((w) => w.contactId),
    );
    const records = await loadTurnRecords(
      session,
      tenantId,
      lastIds.filter((id): id is string => id !== null),
    );
    const byId = new Map(records.map((r) => [r.turnId, r]));
    const items = waiting.map((w, i) => ({ ...w, last: byId.get(lastIds[i] ?? '') ?? null }));
    return c.html(<HandoffsPage {...page(c)} items={items} notice={releaseNotice(c.req.query('released'))} />);
  });
  app.get('/contacts/:contactId', async (c) => {
    const { tenantId } = c.get('dash');
    const contactId = KeyIdSchema.safeParse(c.req.param('contactId'));
    if (!contactId.success) return c.text('That contact id cannot be part of a key.', 400);
    const until = z.coerce.number().int().positive().optional().catch(undefined).parse(c.req.query('until'));
    const session = c.get('session');
    const [conversation, inHandoffUntil] = await Promise.all([
      loadConversation(session, tenantId, contactId.data, until),
      handoffUntil(session, tenantId, contactId.data),
    ]);
    if (!conversation.turns.length && !inHandoffUntil && until === undefined)
      return c.text('No such contact for this tenant.', 404);
    return c.html(
      <ContactPage
        {...page(c)}
        contactId={contactId.data}
        conversation={conversation}
        inHandoffUntil={inHandoffUntil}
        notice={releaseNotice(c.req.query('released'))}
      />,
    );
  });
  app.post('/contacts/:contactId/release', async (c) => {
    const { tenantId, user } = c.get('dash');
    const contactId = KeyIdSchema.safeParse(c.req.param('contactId'));
    const form = await c.req.parseBody();
    const backTurn = z
      .string()
      .regex(/^turn_[0-9a-f]{32}$/)
      .safeParse(form.turnId);
    if (!contactId.success) return c.text('That contact id cannot be part of a key.', 400);
    const session = c.get('session');
    const released = await releaseHandoff(session, tenantId, contactId.data);
    if (released)
      await appendAudit(session, tenantId, {
        actor: actor(user),
        action: 'handoff.released',
        detail: `contact ${contactId.data}`,
      });
    // On Messenger the thread handed to the Page Inbox comes back too, as the tenant API's release does.
    const thread = released ? await takeThreadBack(c.get('services'), c.get('tenant'), contactId.data) : null;
    const outcome = !released ? 'no' : thread && thread !== 'taken' ? `thread:${thread.failed}` : 'yes';
    const q = `released=${encodeURIComponent(outcome.slice(0, 300))}`;
    const to =
      form.back === 'inbox'
        ? `${BASE}/handoffs?${q}`
        : form.back === 'contact'
          ? `${contactHref(contactId.data)}?${q}`
          : backTurn.success
            ? `${BASE}/turns/${backTurn.data}?${q}`
            : `${BASE}/handoffs?${q}`;
    return c.redirect(to, 303);
  });
  app.get('/audit', async (c) => {
    const offset = z.coerce.number().int().min(0).max(10_000).catch(0).parse(c.req.query('offset'));
    const page50 = await readAudit(c.get('session'), c.get('dash').tenantId, { offset, limit: 50 });
    return c.html(<AuditPage {...page(c)} entries={page50.entries} offset={offset} next={page50.next} />);
  });
  app.post('/turns/:turnId/redrive', async (c) => {
    const { tenantId } = c.get('dash');
    const turn = await loadTurn(c.get('session'), tenantId, c.req.param('turnId'));
    if (!turn) return c.text('No such turn for this tenant.', 404);
    const form = RedriveFormSchema.safeParse(await c.req.parseBody());
    const back = (why: string) => c.redirect(`${BASE}/turns/${turn.turnId}?redriven=${encodeURIComponent(why)}`, 303);
    if (!form.success) return back('the form is missing the action');
    // Only an entry this turn owns (its own, or one its approvals or confirmation created).
    if (!(await ownedEntryIds(c, turn)).includes(form.data.entryId))
      return back('that action is not part of this turn');
    return back(await redrive(c, form.data));
  });
  return app;
}
