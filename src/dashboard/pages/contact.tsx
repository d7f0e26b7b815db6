import type { FC } from 'hono/jsx';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import type { Conversation, ConversationTurn } from '../data/contact-conversation.js';
import { deliveryStateOf } from '../data/turns.js';
import { CsrfField, Layout, Notice } from './layout.js';

export const contactHref = (contactId: string) => `${BASE}/contacts/${encodeURIComponent(contactId)}`;

const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);

/** What the contact sent: text, or the button they pressed. */
export const inboundText = (t: ConversationTurn['turn']) =>
  t.inbound.text ?? (t.inbound.callback ? `button press: ${t.inbound.callback.answer}` : '(no text)');

/** Every action of a turn with its delivery state; staged actions nothing committed are said as such. */
const TurnActions: FC<{ item: ConversationTurn }> = ({ item }) => {
  const delivered = item.deliveries.flatMap((d) =>
    d.entry.actions.map((a) => ({ id: a.id, summary: a.summary, state: deliveryStateOf(d.rows.get(a.id)) })),
  );
  const shown = new Set(delivered.map((a) => a.id));
  const notCommitted = item.turn.staged.filter((a) => !shown.has(a.id));
  if (!delivered.length && !notCommitted.length) return null;
  return (
    <ul class="actions-list" aria-label="Actions">
      {delivered.map((a) => (
        <li>
          {a.summary} <span class={`badge ${a.state}`}>{a.state}</span>
        </li>
      ))}
      {notCommitted.map((a) => (
        <li>
          {a.summary}{' '}
          <span class="badge">
            {item.turn.decision === 'pass' ? (a.gate === 'none' ? 'staged' : `waiting (${a.gate})`) : 'not performed'}
          </span>
        </li>
      ))}
    </ul>
  );
};

/** `/dashboard/contacts/:contactId`: one contact's messages, replies and actions across turns, oldest first. */
export const ContactPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  contactId: string;
  conversation: Conversation;
  inHandoffUntil: string | null;
  notice?: { kind: 'ok' | 'error'; text: string } | undefined;
}> = ({ dash, tenantName, contactId, conversation, inHandoffUntil, notice }) => (
  <Layout title={`Contact ${contactId}`} section="turns" dash={dash} tenantName={tenantName}>
    {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
    {inHandoffUntil ? (
      <form method="post" action={`${contactHref(contactId)}/release`} class="card">
        <CsrfField token={dash.csrf} />
        <input type="hidden" name="back" value="contact" />
        <p>This contact is with a person until {when(inHandoffUntil)}: the agent stays silent for them.</p>
        <button type="submit">Release: let the agent answer this contact again</button>
      </form>
    ) : null}
    {conversation.turns.length === 0 ? <p>No turns for this contact.</p> : null}
    {conversation.olderUntil !== null ? (
      <p>
        <a href={`${contactHref(contactId)}?until=${conversation.olderUntil}`}>← Older messages</a>
      </p>
    ) : null}
    <ol class="conversation">
      {conversation.turns.map((item) => (
        <li class="exchange">
          <p class="meta muted">
            <a href={`${BASE}/turns/${item.turn.turnId}`}>{when(item.turn.startedAt)}</a> · {item.turn.inbound.channel}{' '}
            · <span class={`badge ${item.turn.decision}`}>{item.turn.decision}</span>
            {item.turn.deferred ? ' · deferred' : ''}
          </p>
          <p class="bubble contact">
            <span class="who">Contact</span> {inboundText(item.turn)}
          </p>
          <p class="bubble agent">
            <span class="who">Reply</span> {item.turn.reply.text || '(no reply)'}
          </p>
          {item.turn.decision !== 'pass' ? <p class="muted">Why: {item.turn.decisionReason}</p> : null}
          <TurnActions item={item} />
        </li>
      ))}
    </ol>
  </Layout>
);
