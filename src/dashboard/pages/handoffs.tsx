import type { FC } from 'hono/jsx';
import type { DashboardSession } from '../auth/sessions.js';
import type { WaitingContact } from '../../../core/storage/handoffs.js';
import type { TurnRecord } from '../../../core/turn-record.js';
import { BASE } from '../dashboard-context.js';
import { contactHref, inboundText } from './contact.js';
import { CsrfField, Layout, Notice } from './layout.js';

export interface InboxItem extends WaitingContact {
  /** The contact's newest turn (what they last wrote, why it was handed over), when still kept. */
  last: TurnRecord | null;
}

const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);

/** `/dashboard/handoffs`: contacts waiting for a person (their handoff silence is on), each with a release button. */
export const HandoffsPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  items: InboxItem[];
  notice?: { kind: 'ok' | 'error'; text: string } | undefined;
}> = ({ dash, tenantName, items, notice }) => (
  <Layout title="Handoff inbox" section="handoffs" dash={dash} tenantName={tenantName}>
    {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
    <p>
      Contacts an escalation handed to a person. The agent stays silent for each until the time shown, or until you
      release them.
    </p>
    {items.length === 0 ? <p>No contact is waiting for a person.</p> : null}
    <ul class="cards inbox">
      {items.map((item) => (
        <li class="card">
          <h2>
            <a href={contactHref(item.contactId)}>{`Contact ${item.contactId}`}</a>
          </h2>
          {item.last ? (
            <>
              <p>
                <span class="who">Last message</span> {inboundText(item.last)}
              </p>
              <p class="muted">
                {when(item.last.startedAt)} on {item.last.inbound.channel} · {item.last.decisionReason}
              </p>
            </>
          ) : null}
          <p>Silent until {when(item.until)}.</p>
          <form method="post" action={`${contactHref(item.contactId)}/release`}>
            <CsrfField token={dash.csrf} />
            <input type="hidden" name="back" value="inbox" />
            <button type="submit">{`Release ${item.contactId}`}</button>
          </form>
        </li>
      ))}
    </ul>
  </Layout>
);
