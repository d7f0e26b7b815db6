import type { FC } from 'hono/jsx';
import type { DashboardSession } from '../auth/sessions.js';
import { Layout } from '../pages/layout.js';
import { MANYCHAT_SETUP_GUIDE } from './manychat-guide.generated.js';

/**
 * The README's ManyChat setup walkthrough (docs/manychat-setup.md, bundled by `npm run docs`),
 * with this tenant's own webhook URL first: the page a tenant follows to connect ManyChat.
 * Shown as the Markdown text it is: the dashboard ships no Markdown renderer for one page.
 */
export const ManychatGuidePage: FC<{ dash: DashboardSession; tenantName: string; webhookUrl: string }> = ({ dash, tenantName, webhookUrl }) => (
  <Layout title="Connect ManyChat" section="setup" dash={dash} tenantName={tenantName}>
    <p>
      Your webhook URL: <code id="webhook-url">{webhookUrl}</code> (the secret for its <code>x-staged-agent-secret</code> header was shown once when the tenant was created; your operator can rotate it).
    </p>
    <pre id="manychat-guide">{MANYCHAT_SETUP_GUIDE.replace(/^<!--.*-->\n+/, '')}</pre>
  </Layout>
);
