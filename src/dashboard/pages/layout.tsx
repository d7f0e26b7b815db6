import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import { raw } from 'hono/html';
import { BASE } from '../dashboard-context.js';
import type { DashboardSession } from '../auth/sessions.js';

const NAV = [
  ['setup', 'Setup'],
  ['approvals', 'Approvals'],
  ['turns', 'Turns'],
  ['handoffs', 'Handoffs'],
  ['health', 'Health'],
  ['try', 'Try it'],
  ['replay', 'Replay'],
  ['api', 'API reference'],
] as const;

export type Section = (typeof NAV)[number][0] | 'login';

/**
 * The page frame. Every page works as plain HTML forms and links; the one script (copy buttons
 * on Connect ManyChat) only adds a convenience, served from the Worker under `script-src 'self'`.
 */
export const Layout: FC<
  PropsWithChildren<{ title: string; section: Section; dash?: DashboardSession; tenantName?: string; script?: 'copy' }>
> = ({ title, section, dash, tenantName, script, children }) => (
  <>
    {raw('<!doctype html>')}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · staged-agent dashboard`}</title>
        <link rel="stylesheet" href={`${BASE}/style.css`} />
        {script ? <script src={`${BASE}/${script}.js`} defer></script> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <strong class="brand">staged-agent</strong>
          {dash ? (
            <>
              <nav aria-label="Dashboard">
                <ul>
                  {NAV.map(([id, label]) => (
                    <li>
                      <a href={`${BASE}/${id}`} aria-current={id === section ? 'page' : undefined}>
                        {label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              <form method="post" action={`${BASE}/logout`} class="logout">
                <CsrfField token={dash.csrf} />
                <span>
                  {dash.user} · {tenantName ?? dash.tenantId}
                </span>
                <button type="submit">Log out</button>
              </form>
            </>
          ) : null}
        </header>
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  </>
);

export const CsrfField: FC<{ token: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token} />;

/** A notice at the top of a page (saved, refused, …), announced to screen readers. */
export const Notice: FC<{ kind: 'ok' | 'error' | 'info'; children?: Child }> = ({ kind, children }) => (
  <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
    {children}
  </p>
);
