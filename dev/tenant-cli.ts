/**
 * `npm run tenant -- <command>`: the operator's command line, a thin client of the operator API
 * (`/v1/operator`). Against the local stack by default (it reads `.local/stack.json`: the Worker's
 * URL and the operator secret), or any Worker with `--url` and `--operator-secret` (or the
 * OPERATOR_SECRET environment variable). Secrets it prints are shown once: store them.
 *
 *   create <tenant-id> --manychat-key KEY [--config file.json] [--messenger-app-secret S
 *          --messenger-page-token T --messenger-verify-token V]
 *   list | show <tenant-id> | suspend <tenant-id> | resume <tenant-id> | delete <tenant-id>
 *   rotate <tenant-id> --secret webhook|admin [--overlap-minutes N]
 *   secrets <tenant-id> [--manychat-key KEY] [--messenger-app-secret S] [--messenger-page-token T]
 *          [--messenger-verify-token V]   (replace a leaked one; write-only)
 *   reencrypt
 *   audit [--offset N] [--limit N]   (the operator's audit log, newest first)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './stack.js';

const USAGE = `usage: npm run tenant -- <create|list|show|rotate|secrets|suspend|resume|delete|reencrypt|dashboard-user|audit> [tenant-id] [options]
  --url URL                 the Worker (default: .local/stack.json's workerUrl)
  --operator-secret SECRET  default: $OPERATOR_SECRET, else .local/stack.json's operatorSecret
  create: --manychat-key KEY [--config file.json] [--messenger-app-secret S] [--messenger-page-token T] [--messenger-verify-token V]
  rotate: --secret webhook|admin [--overlap-minutes N] (default 60)
  secrets: [--manychat-key KEY] [--messenger-app-secret S] [--messenger-page-token T] [--messenger-verify-token V]  (replace; write-only)
  dashboard-user: --user NAME [--remove]  (a generated password, shown once; ends the user's open sessions)
  audit: [--offset N] [--limit N]  (the operator's audit log, newest first; default 50 entries)`;

interface Target {
  url: string;
  secret: string;
}

async function target(values: { url?: string; 'operator-secret'?: string }): Promise<Target> {
  let facts: { workerUrl?: string | null; operatorSecret?: string } = {};
  try {
    facts = JSON.parse(await readFile(join(ROOT, '.local', 'stack.json'), 'utf8')) as typeof facts;
  } catch {
    // no local stack: --url and --operator-secret must say where
  }
  const url = values.url ?? facts.workerUrl ?? undefined;
  const secret = values['operator-secret'] ?? process.env.OPERATOR_SECRET ?? facts.operatorSecret;
  if (!url || !secret) throw new UsageError('no Worker to talk to: start the local stack (npm start) or pass --url and --operator-secret');
  return { url: url.replace(/\/$/, ''), secret };
}

class UsageError extends Error {}

/** The Messenger secrets given on the command line, as the operator API takes them. */
function messengerSecretsOf(values: { 'messenger-app-secret'?: string | undefined; 'messenger-page-token'?: string | undefined; 'messenger-verify-token'?: string | undefined }): Record<string, string> {
  return {
    ...(values['messenger-app-secret'] ? { appSecret: values['messenger-app-secret'] } : {}),
    ...(values['messenger-page-token'] ? { pageAccessToken: values['messenger-page-token'] } : {}),
    ...(values['messenger-verify-token'] ? { verifyToken: values['messenger-verify-token'] } : {}),
  };
}

async function call(t: Target, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${t.url}/v1/operator${path}`, {
    method,
    headers: { authorization: `Bearer ${t.secret}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json().catch(() => ({ error: `HTTP ${res.status} without a JSON body` }))) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${String(json.error ?? '')}${Array.isArray(json.details) ? `\n  ${json.details.join('\n  ')}` : ''}`);
  return json;
}

export async function runTenantCli(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'operator-secret': { type: 'string' },
      'manychat-key': { type: 'string' },
      config: { type: 'string' },
      'messenger-app-secret': { type: 'string' },
      'messenger-page-token': { type: 'string' },
      'messenger-verify-token': { type: 'string' },
      secret: { type: 'string' },
      'overlap-minutes': { type: 'string' },
      user: { type: 'string' },
      remove: { type: 'boolean' },
      offset: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const [command, tenantId] = positionals;
  const needsId = () => {
    if (!tenantId) throw new UsageError(`${command} needs a tenant id`);
    return tenantId;
  };
  const t = await target(values);
  const show = (v: unknown) => print(JSON.stringify(v, null, 2));
  switch (command) {
    case 'create': {
      if (!values['manychat-key']) throw new UsageError('create needs --manychat-key');
      const config = values.config ? (JSON.parse(await readFile(values.config, 'utf8')) as unknown) : undefined;
      const messenger = messengerSecretsOf(values);
      show(await call(t, 'POST', '/tenants', { tenantId: needsId(), manychatApiKey: values['manychat-key'], ...(config ? { config } : {}), ...(Object.keys(messenger).length ? { messenger } : {}) }));
      return 0;
    }
    case 'secrets': {
      const messenger = messengerSecretsOf(values);
      if (!values['manychat-key'] && !Object.keys(messenger).length) throw new UsageError('secrets needs at least one of --manychat-key, --messenger-app-secret, --messenger-page-token, --messenger-verify-token');
      show(await call(t, 'PUT', `/tenants/${needsId()}/secrets`, { ...(values['manychat-key'] ? { manychatApiKey: values['manychat-key'] } : {}), ...(Object.keys(messenger).length ? { messenger } : {}) }));
      return 0;
    }
    case 'list':
      show(await call(t, 'GET', '/tenants'));
      return 0;
    case 'show':
      show(await call(t, 'GET', `/tenants/${needsId()}`));
      return 0;
    case 'rotate': {
      if (values.secret !== 'webhook' && values.secret !== 'admin') throw new UsageError('rotate needs --secret webhook|admin');
      const overlapMinutes = values['overlap-minutes'] !== undefined ? Number(values['overlap-minutes']) : 60;
      show(await call(t, 'POST', `/tenants/${needsId()}/rotate`, { secret: values.secret, overlapMinutes }));
      return 0;
    }
    case 'suspend':
    case 'resume':
      show(await call(t, 'POST', `/tenants/${needsId()}/${command}`));
      return 0;
    case 'delete':
      show(await call(t, 'DELETE', `/tenants/${needsId()}`));
      return 0;
    case 'dashboard-user':
      if (!values.user) throw new UsageError('dashboard-user needs --user NAME');
      show(await call(t, values.remove ? 'DELETE' : 'PUT', `/tenants/${needsId()}/dashboard-users/${encodeURIComponent(values.user)}`));
      return 0;
    case 'reencrypt':
      show(await call(t, 'POST', '/secrets/reencrypt'));
      return 0;
    case 'audit': {
      // Passed as given: the Worker validates the page and names what is wrong.
      const page = new URLSearchParams({ ...(values.offset !== undefined ? { offset: values.offset } : {}), ...(values.limit !== undefined ? { limit: values.limit } : {}) });
      show(await call(t, 'GET', `/audit${page.size ? `?${page}` : ''}`));
      return 0;
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command');
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  runTenantCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) console.error(`${err.message}\n${USAGE}`);
      else console.error(err instanceof Error ? err.message : String(err));
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
