import type { FC } from 'hono/jsx';
import { MANYCHAT_REQUEST_BODY } from '../../channels/manychat/request-template.js';
import { WEBHOOK_SECRET_HEADER } from '../../channels/manychat/webhook-auth.js';
import type { DashboardSession } from '../auth/sessions.js';
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
  rotation?: RotationShown | undefined;
  previousValidUntil?: string | undefined;
  error?: string | undefined;
}> = ({ dash, tenantName, webhookUrl, rotation, previousValidUntil, error }) => (
  <Layout title="Setup: Channels — connect ManyChat" section="setup" dash={dash} tenantName={tenantName} script="copy">
    <SectionNav current="channels" />
    {error ? <Notice kind="error">{error}</Notice> : null}
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
