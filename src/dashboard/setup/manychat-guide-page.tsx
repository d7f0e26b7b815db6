import type { FC } from 'hono/jsx';
import { MANYCHAT_CHANNEL_LIMITS, type ManyChatChannel } from '../../../core/manychat-channels.js';
import { MANYCHAT_REQUEST_BODY } from '../../channels/manychat/request-template.js';
import { WEBHOOK_SECRET_HEADER } from '../../channels/manychat/webhook-auth.js';
import type { DashboardSession } from '../auth/sessions.js';
import { USAGE_WINDOW, type ChannelUsage, type UsageChannel } from '../data/channel-usage.js';
import { BASE } from '../dashboard-context.js';
import { CsrfField, Layout, Notice } from '../pages/layout.js';
import { SectionNav } from './setup-page.js';

/** A value to paste into ManyChat, with a button that copies it (the page's one script; without it, select and copy). */
const Copyable: FC<{ id: string; label: string; copy: string; value: string; block?: boolean }> = ({
  id,
  label,
  copy,
  value,
  block,
}) => (
  <div class="copyable">
    <p class="copy-label" id={`${id}-label`}>
      {label}
    </p>
    {block ? (
      <pre id={id} aria-labelledby={`${id}-label`}>
        {value}
      </pre>
    ) : (
      <code id={id} aria-labelledby={`${id}-label`}>
        {value}
      </code>
    )}
    <button type="button" class="secondary copy" data-copy={id}>
      {copy}
    </button>
  </div>
);

/** What the Channels page shows about the tenant's channels: use from its turn log, and what is enabled. */
export interface ChannelsOverview {
  usage: Record<UsageChannel, ChannelUsage>;
  /** Turns read from the log (the newest, at most USAGE_WINDOW). */
  read: number;
  /** A ManyChat API key is stored (deferred replies, flows, tags and fields can be sent). */
  manyChatApiKey: boolean;
  /** Messenger pages connected directly (Meta app), by id and name. */
  messengerPages: { id: string; name?: string | undefined }[];
}

const MANYCHAT_ROWS: { channel: ManyChatChannel; label: string; note: string }[] = [
  { channel: 'facebook', label: 'Facebook Messenger (via ManyChat)', note: 'optional: the default' },
  { channel: 'instagram', label: 'Instagram', note: 'optional: ig_id / ig_username tell it' },
  { channel: 'whatsapp', label: 'WhatsApp', note: 'optional: whatsapp_phone tells it' },
  { channel: 'telegram', label: 'Telegram', note: 'required on Telegram: no contact field tells it' },
];

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '–');

const UsageCells: FC<{ u: ChannelUsage }> = ({ u }) =>
  u.turns ? (
    <>
      <td>{`${plural(u.turns, 'turn')} ${plural(u.contacts, 'contact')}`}</td>
      <td>{when(u.lastAt)}</td>
    </>
  ) : (
    <>
      <td class="muted">no contact yet</td>
      <td>–</td>
    </>
  );

/** What a ManyChat channel's contact gets, from the one table in core/ (the same the renderer uses). */
function shapeOf(channel: ManyChatChannel): string {
  const l = MANYCHAT_CHANNEL_LIMITS[channel];
  const buttons = l.quickReplies ? 'Yes/No as quick replies' : 'Yes/No as buttons on the text';
  const window =
    l.windowHours === null
      ? 'no messaging window'
      : channel === 'facebook'
        ? `after ${l.windowHours} h only with a message tag`
        : `nothing automated after ${l.windowHours} h`;
  return `${buttons}; ${window}`;
}

/**
 * The tenant's pages per channel: which channels its contacts have written on (its own turn log)
 * and which are enabled. All four ManyChat channels come through the one webhook and API key; a
 * flow names its channel in the request template.
 */
export const ChannelsOverviewSection: FC<{ overview: ChannelsOverview }> = ({ overview }) => {
  // Every tenant has a ManyChat API key (provisioning requires one): the four channels share it and the webhook.
  const manyChatEnabled = overview.manyChatApiKey
    ? 'Enabled: the same webhook and API key'
    : 'Webhook replies only: no ManyChat API key (add it under Secrets)';
  const pages = overview.messengerPages;
  return (
    <section class="card" aria-labelledby="channels-heading">
      <h2 id="channels-heading">Channels your contacts use</h2>
      <div class="table-wrap">
        <table id="channel-usage">
          <caption>{`Counted from the newest ${overview.read} turns of your turn log (at most ${USAGE_WINDOW}).`}</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Enabled</th>
              <th scope="col">Used by</th>
              <th scope="col">Last turn</th>
              <th scope="col">Request template</th>
              <th scope="col">What the contact gets</th>
            </tr>
          </thead>
          <tbody>
            {MANYCHAT_ROWS.map((r) => (
              <tr>
                <th scope="row">{r.label}</th>
                <td>{manyChatEnabled}</td>
                <UsageCells u={overview.usage[r.channel]} />
                <td>
                  <code>{`"channel": "${r.channel}"`}</code> {r.note}
                </td>
                <td>{shapeOf(r.channel)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Messenger (direct)</th>
              <td>
                {pages.length
                  ? `Enabled: ${plural(pages.length, 'page')} (${pages.map((p) => p.name ?? p.id).join(', ')})`
                  : 'Not set up (no Messenger pages in the configuration)'}
              </td>
              <UsageCells u={overview.usage.messenger} />
              <td>its own webhook (docs/messenger-pages.md)</td>
              <td>Meta's Send API, quick replies, 24 h window</td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  );
};

export interface RotationShown {
  secret: string;
  previousValidUntil: string;
}

/**
 * Setup → Channels: connecting ManyChat, step by step, with this tenant's own webhook URL and
 * request template to copy, and the webhook secret rotated here (a new one shown once; the old
 * one keeps working through an overlap window so the Dynamic Block can be updated first).
 */
export const ManychatGuidePage: FC<{
  dash: DashboardSession;
  tenantName: string;
  webhookUrl: string;
  overview: ChannelsOverview;
  rotation?: RotationShown | undefined;
  previousValidUntil?: string | undefined;
  error?: string | undefined;
}> = ({ dash, tenantName, webhookUrl, overview, rotation, previousValidUntil, error }) => (
  <Layout title="Setup: Channels — connect ManyChat" section="setup" dash={dash} tenantName={tenantName} script="copy">
    <SectionNav current="channels" />
    {error ? <Notice kind="error">{error}</Notice> : null}
    <ChannelsOverviewSection overview={overview} />
    <ol class="steps">
      <li>
        <h2>Your ManyChat API key</h2>
        <p>
          In ManyChat, open Settings → API (Pro plan) and copy the key whole: it looks like <code>1234567:abcdef…</code>
          . Paste it under <a href={`${BASE}/setup/secrets`}>Secrets</a> and press Check.
        </p>
      </li>
      <li>
        <h2>Your flows, tags and fields</h2>
        <p>
          <a href={`${BASE}/setup/import`}>Import them from ManyChat</a> and pick the ones the agent may use; then give
          the agent <a href={`${BASE}/setup/tools`}>tools</a> that use them.
        </p>
      </li>
      <li>
        <h2>Route messages to the agent</h2>
        <p>
          In ManyChat: Automation → <strong>Default Reply</strong> (or a Keyword rule) → a flow whose first step is a{' '}
          <strong>Send Message</strong> node holding a <strong>Dynamic Block</strong> ("+ Add content" → Dynamic Block).
          Set its request:
        </p>
        <Copyable id="webhook-url" label="Webhook URL (method POST)" copy="Copy webhook URL" value={webhookUrl} />
        <table class="headers">
          <caption>Headers</caption>
          <thead>
            <tr>
              <th scope="col">Header</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <code>Content-Type</code>
              </td>
              <td>
                <code>application/json</code>
              </td>
            </tr>
            <tr>
              <td>
                <code id="secret-header">{WEBHOOK_SECRET_HEADER}</code>
              </td>
              <td>your webhook secret (below: shown once when it is created or rotated)</td>
            </tr>
          </tbody>
        </table>
        <Copyable id="request-body" label="Request body" copy="Copy request body" value={MANYCHAT_REQUEST_BODY} block />
        <p class="muted">
          Type the body as it is, inserting each {'{{…}}'} from the body editor's variable menu. The agent answers a
          Dynamic Block v2: ManyChat shows it as it is, no response mapping. Put nothing after the Dynamic Block in the
          same node.
        </p>
      </li>
      <li>
        <h2>Send your page a message</h2>
        <p>
          Or use <a href={`${BASE}/try`}>Try it</a> with a real test subscriber. Each turn appears under{' '}
          <a href={`${BASE}/turns`}>Turns</a>.
        </p>
      </li>
    </ol>
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading">Webhook secret</h2>
      {rotation ? (
        <>
          <Notice kind="ok">{`New webhook secret created. Your previous one keeps working until ${rotation.previousValidUntil}: put this one in the Dynamic Block's ${WEBHOOK_SECRET_HEADER} header before then. It is not shown again.`}</Notice>
          <Copyable id="new-secret" label="New webhook secret" copy="Copy new webhook secret" value={rotation.secret} />
        </>
      ) : (
        <p>
          Stored only as a keyed hash, so it cannot be shown. Lost it, or someone else saw it? Make a new one.
          {previousValidUntil ? ` A previous secret still works until ${previousValidUntil}.` : ''}
        </p>
      )}
      <form method="post" action={`${BASE}/setup/channels/rotate`}>
        <CsrfField token={dash.csrf} />
        <label for="overlap">
          Minutes the current secret keeps working (0–10080), so you can update ManyChat first
        </label>
        <input id="overlap" name="overlapMinutes" type="number" value="60" min="0" max="10080" />
        <div class="actions">
          <button type="submit">Make a new webhook secret</button>
        </div>
      </form>
    </section>
  </Layout>
);
