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
  /** The Worker's bindings for the next requests (a test changes them, e.g. to rotate SESSION_SECRET). */
  env: Record<string, string> = workerEnv;
  /** The real app; tests that run turns pass one with a scripted model. */
  constructor(
    readonly app: {
      fetch: (request: Request, env: Record<string, string>) => Response | Promise<Response>;
    } = createApp(),
  ) {}

  async request(
    method: string,
    path: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
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
      this.env,
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

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]!) : undefined;
};

/**
 * The fields a browser would submit for the form posting to `action` (inputs, checked boxes,
 * textareas, selected options), read from the server-rendered HTML.
 */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input\b[^>]*>/g)) {
    const tag = m[0];
    const name = attr(tag, 'name');
    if (!name) continue;
    const type = attr(tag, 'type') ?? 'text';
    if (type === 'checkbox') {
      if (/\schecked(=""|\s|>|\/)/.test(tag)) fields[name] = attr(tag, 'value') ?? 'on';
      continue;
    }
    fields[name] = attr(tag, 'value') ?? '';
  }
  for (const m of form.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = attr(m[1]!, 'name');
    if (name) fields[name] = unescape(m[2]!);
  }
  for (const m of form.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = attr(m[1]!, 'name');
    if (!name) continue;
    const options = [...m[2]!.matchAll(/<option\b([^>]*)>/g)].map((o) => o[1]!);
    const selected = options.find((o) => /\sselected/.test(o)) ?? options[0];
    fields[name] = selected ? (attr(selected, 'value') ?? '') : '';
  }
  return fields;
}
