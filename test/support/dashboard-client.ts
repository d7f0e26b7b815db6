import { createApp } from '../../src/app.js';
import { workerEnv } from './workers-env.js';

export const ORIGIN = 'https://dash.test';

/**
 * A browser-like client of the real app's dashboard in workerd: keeps the session cookie, sends
 * the Origin a same-site form would, and reads each page's CSRF token.
 */
export class DashboardClient {
  cookie = '';
  csrf = '';
  /** Each client is its own address to the login rate limit (Cloudflare's cf-connecting-ip). */
  readonly address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  /** The real app; tests that run turns pass one with a scripted model. */
  constructor(readonly app: { fetch: (request: Request, env: Record<string, string>) => Response | Promise<Response> } = createApp()) {}

  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const res = await this.app.fetch(
      new Request(`${ORIGIN}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          'cf-connecting-ip': this.address,
          ...(this.cookie ? { cookie: this.cookie } : {}),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body } : {}),
      }),
      workerEnv,
    );
    const set = res.headers.get('set-cookie');
    if (set) {
      const pair = set.split(';')[0]!;
      this.cookie = /=$/.test(pair) || /Max-Age=0/i.test(set) ? '' : pair;
    }
    return res;
  }

  /** GET a page; remembers its CSRF token. */
  async page(path: string): Promise<{ res: Response; html: string }> {
    const res = await this.request('GET', path);
    const html = await res.text();
    const token = /name="_csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
    if (token) this.csrf = token;
    return { res, html };
  }

  /** A form post with the page's CSRF token. */
  post(path: string, form: Record<string, string> = {}): Promise<Response> {
    return this.request('POST', path, { _csrf: this.csrf, ...form });
  }

  async login(tenant: string, user: string, password: string): Promise<Response> {
    const res = await this.request('POST', '/dashboard/login', { tenant, user, password });
    if (res.status === 303 && this.cookie) await this.page('/dashboard/setup');
    return res;
  }
}
