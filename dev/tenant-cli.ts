/**
 * `npm run tenant -- <command>`: the operator's command line, a thin client of the operator API
 * (`/v1/operator`) and, for `config get|diff|push`, of the tenant API with the tenant's admin
 * secret. Against the local stack by default (the Worker's URL and the operator secret from the
 * stack facts `npm start` wrote: `$STACK_STATE_DIR/stack.json`, else `.local/stack.json`), or any
 * Worker with `--url` and `--operator-secret` (or OPERATOR_SECRET). Secrets it prints are shown
 * once: store them. `npm run tenant -- --help` lists the commands, `<command> --help` one;
 * exit codes: 0 done, 1 the Worker refused or failed, 2 a usage error.
 */
import { readFile } from 'node:fs/promises';
import { createTwoFilesPatch } from 'diff';
import { parseTenantConfig } from '../core/tenant/tenant-config.js';
import {
  EXIT,
  parseCommandLine,
  readStackFacts,
  rejectOptionsOutside,
  runAsScript,
  stackFactsFile,
  UsageError,
} from './cli/cli-args.js';

const TARGET = `  --url URL                 the Worker (default: the local stack's, from $STACK_STATE_DIR/stack.json or .local/stack.json)
  --operator-secret SECRET  default: $OPERATOR_SECRET, else the local stack's`;

/** Each command: its usage line(s) and the options it takes (besides --url, --operator-secret, --help). */
const COMMANDS: Record<string, { usage: string; options: string[] }> = {
  create: {
    usage: `create <tenant-id> --manychat-key KEY [--config file.json] [--messenger-app-secret S] [--messenger-page-token T] [--messenger-verify-token V]
    a new tenant; prints its webhook and admin secrets once`,
    options: ['manychat-key', 'config', 'messenger-app-secret', 'messenger-page-token', 'messenger-verify-token'],
  },
  list: {
    usage: `list
    every tenant and its status`,
    options: [],
  },
  show: {
    usage: `show <tenant-id>
    one tenant: status, which secrets are set (never their values)`,
    options: [],
  },
  config: {
    usage: `config get <tenant-id> [--admin-secret S]                  print the stored config (JSON)
  config diff <tenant-id> --file config.json [--admin-secret S]  what a push would change (unified diff of the validated file vs the stored config)
  config push <tenant-id> --file config.json [--admin-secret S]  validate and store it; a refused config prints every problem (exit 1)
    --admin-secret: the tenant's admin secret (create printed it); default $TENANT_ADMIN_SECRET, else the local stack's demo tenant's`,
    options: ['file', 'admin-secret'],
  },
  rotate: {
    usage: `rotate <tenant-id> --secret webhook|admin [--overlap-minutes N]
    a new secret; the old one works for N more minutes (default 60)`,
    options: ['secret', 'overlap-minutes'],
  },
  secrets: {
    usage: `secrets <tenant-id> [--manychat-key KEY] [--messenger-app-secret S] [--messenger-page-token T] [--messenger-verify-token V]
    replace a leaked one (write-only; the others are kept)`,
    options: ['manychat-key', 'messenger-app-secret', 'messenger-page-token', 'messenger-verify-token'],
  },
  suspend: {
    usage: `suspend <tenant-id>
    answer its contacts with suspendedReply, no model call, nothing performed`,
    options: [],
  },
  resume: { usage: `resume <tenant-id>`, options: [] },
  delete: {
    usage: `delete <tenant-id>
    remove every key of the tenant (the operator audit log keeps the deletion)`,
    options: [],
  },
  reencrypt: {
    usage: `reencrypt
    seal every tenant's secrets under the current SECRETS_ENCRYPTION_KEYS key`,
    options: [],
  },
  'dashboard-user': {
    usage: `dashboard-user <tenant-id> --user NAME [--remove]
    create or reset a dashboard user (a generated password, shown once; ends their open sessions)`,
    options: ['user', 'remove'],
  },
  audit: {
    usage: `audit [--offset N] [--limit N]
    the operator's audit log, newest first (default 50 entries)`,
    options: ['offset', 'limit'],
  },
};

const EXIT_CODES = 'exit codes: 0 done · 1 the Worker refused or failed (its answer is printed) · 2 a usage error';

export function tenantUsage(command?: string): string {
  const entry = command ? COMMANDS[command] : undefined;
  if (entry)
    return `usage: npm run tenant -- ${entry.usage}
${TARGET}
${EXIT_CODES}`;
  return [
    `usage: npm run tenant -- <command> [tenant-id] [options]     (npm run tenant -- <command> --help for one)`,
    '',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    '',
    TARGET,
    EXIT_CODES,
  ].join('\n');
}

/** A usage error while parsing is shown with the usage of the command it was for. */
function withCommandUsage<T>(argv: string[], parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof UsageError) err.usage = tenantUsage(argv.find((a) => !a.startsWith('-')));
    throw err;
  }
}

function usageError(message: string, command?: string): UsageError {
  const err = new UsageError(message);
  err.usage = tenantUsage(command);
  return err;
}

interface Target {
  url: string;
  secret: string;
}

interface LocalFacts {
  workerUrl: string | null;
  operatorSecret: string;
  demo: { tenantId: string; adminSecret: string };
}

async function target(
  values: { url?: string | undefined; 'operator-secret'?: string | undefined },
  facts: Partial<LocalFacts>,
): Promise<Target> {
  const url = values.url ?? facts.workerUrl ?? undefined;
  const secret = values['operator-secret'] ?? process.env.OPERATOR_SECRET ?? facts.operatorSecret;
  if (!url || !secret)
    throw usageError(
      `no Worker to talk to: start the local stack (npm start; looked for ${stackFactsFile()}) or pass --url and --operator-secret`,
    );
  return { url: url.replace(/\/$/, ''), secret };
}

/** The Messenger secrets given on the command line, as the operator API takes them. */
function messengerSecretsOf(values: {
  'messenger-app-secret'?: string | undefined;
  'messenger-page-token'?: string | undefined;
  'messenger-verify-token'?: string | undefined;
}): Record<string, string> {
  return {
    ...(values['messenger-app-secret'] ? { appSecret: values['messenger-app-secret'] } : {}),
    ...(values['messenger-page-token'] ? { pageAccessToken: values['messenger-page-token'] } : {}),
    ...(values['messenger-verify-token'] ? { verifyToken: values['messenger-verify-token'] } : {}),
  };
}

async function call(t: Target, method: string, path: string, body?: unknown, api = '/v1/operator'): Promise<unknown> {
  const res = await fetch(`${t.url}${api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${t.secret}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json().catch(() => ({ error: `HTTP ${res.status} without a JSON body` }))) as Record<
    string,
    unknown
  >;
  if (!res.ok)
    throw new Error(
      `${method} ${path}: ${res.status} ${String(json.error ?? '')}${Array.isArray(json.details) ? `\n  ${json.details.join('\n  ')}` : ''}`,
    );
  return json;
}

export async function runTenantCli(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = withCommandUsage(argv, () =>
    parseCommandLine(argv, {
      url: { type: 'string' },
      'operator-secret': { type: 'string' },
      'admin-secret': { type: 'string' },
      file: { type: 'string' },
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
    }),
  );
  const [command] = positionals;
  if (command !== undefined && !(command in COMMANDS)) throw usageError(`unknown command "${command}"`);
  if (values.help || !command) {
    if (!command && !values.help) throw usageError('no command');
    print(tenantUsage(command));
    return EXIT.ok;
  }
  withCommandUsage([command], () =>
    rejectOptionsOutside(values, ['url', 'operator-secret', ...COMMANDS[command]!.options], command),
  );
  const sub = command === 'config' ? positionals[1] : undefined;
  if (command === 'config' && !['get', 'push', 'diff'].includes(sub ?? ''))
    throw usageError(
      sub ? `unknown config command "${sub}" (get, push or diff)` : 'config needs get, push or diff',
      'config',
    );
  const args = positionals.slice(command === 'config' ? 2 : 1);
  const [tenantId] = args;
  const takesId = !['list', 'reencrypt', 'audit'].includes(command);
  if (args.length > (takesId ? 1 : 0))
    throw usageError(
      `${command} takes ${takesId ? 'one tenant id' : 'no tenant id'}; unexpected "${args.slice(takesId ? 1 : 0).join(' ')}"`,
      command,
    );
  const needsId = () => {
    if (!tenantId) throw usageError(`${sub ? `config ${sub}` : command} needs a tenant id`, command);
    return tenantId;
  };
  if (takesId) needsId(); // a missing id is a usage error before anything is read or called
  const facts = await readStackFacts<LocalFacts>();
  const show = (v: unknown) => print(JSON.stringify(v, null, 2));
  if (command === 'config') return configCommand(sub as 'get' | 'push' | 'diff', needsId(), values, facts, print);
  const t = await target(values, facts);
  switch (command) {
    case 'create': {
      if (!values['manychat-key']) throw usageError('create needs --manychat-key', command);
      const config = values.config ? await readJsonFile(values.config) : undefined;
      const messenger = messengerSecretsOf(values);
      show(
        await call(t, 'POST', '/tenants', {
          tenantId: needsId(),
          manychatApiKey: values['manychat-key'],
          ...(config ? { config } : {}),
          ...(Object.keys(messenger).length ? { messenger } : {}),
        }),
      );
      return EXIT.ok;
    }
    case 'secrets': {
      const messenger = messengerSecretsOf(values);
      if (!values['manychat-key'] && !Object.keys(messenger).length)
        throw usageError(
          'secrets needs at least one of --manychat-key, --messenger-app-secret, --messenger-page-token, --messenger-verify-token',
          command,
        );
      show(
        await call(t, 'PUT', `/tenants/${needsId()}/secrets`, {
          ...(values['manychat-key'] ? { manychatApiKey: values['manychat-key'] } : {}),
          ...(Object.keys(messenger).length ? { messenger } : {}),
        }),
      );
      return EXIT.ok;
    }
    case 'list':
      show(await call(t, 'GET', '/tenants'));
      return EXIT.ok;
    case 'show':
      show(await call(t, 'GET', `/tenants/${needsId()}`));
      return EXIT.ok;
    case 'rotate': {
      if (values.secret !== 'webhook' && values.secret !== 'admin')
        throw usageError('rotate needs --secret webhook|admin', command);
      const overlapMinutes = values['overlap-minutes'] !== undefined ? Number(values['overlap-minutes']) : 60;
      show(await call(t, 'POST', `/tenants/${needsId()}/rotate`, { secret: values.secret, overlapMinutes }));
      return EXIT.ok;
    }
    case 'suspend':
    case 'resume':
      show(await call(t, 'POST', `/tenants/${needsId()}/${command}`));
      return EXIT.ok;
    case 'delete':
      show(await call(t, 'DELETE', `/tenants/${needsId()}`));
      return EXIT.ok;
    case 'dashboard-user':
      if (!values.user) throw usageError('dashboard-user needs --user NAME', command);
      show(
        await call(
          t,
          values.remove ? 'DELETE' : 'PUT',
          `/tenants/${needsId()}/dashboard-users/${encodeURIComponent(values.user)}`,
        ),
      );
      return EXIT.ok;
    case 'reencrypt':
      show(await call(t, 'POST', '/secrets/reencrypt'));
      return EXIT.ok;
    default: {
      // audit. Passed as given: the Worker validates the page and names what is wrong.
      const page = new URLSearchParams({
        ...(values.offset !== undefined ? { offset: values.offset } : {}),
        ...(values.limit !== undefined ? { limit: values.limit } : {}),
      });
      show(await call(t, 'GET', `/audit${page.size ? `?${page}` : ''}`));
      return EXIT.ok;
    }
  }
}

async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw usageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${file} is not JSON: ${(err as Error).message}`);
  }
}

/**
 * `config get|diff|push`: the tenant API (`/v1/tenants/:t/config`) with the tenant's admin secret —
 * the operator secret does not open a tenant's config. `diff` validates the file as a push would
 * (defaults filled in) so it shows only what would really change.
 */
async function configCommand(
  sub: 'get' | 'push' | 'diff',
  tenantId: string,
  values: { url?: string | undefined; 'admin-secret'?: string | undefined; file?: string | undefined },
  facts: Partial<LocalFacts>,
  print: (line: string) => void,
): Promise<number> {
  const url = (values.url ?? facts.workerUrl ?? undefined)?.replace(/\/$/, '');
  const secret =
    values['admin-secret'] ??
    process.env.TENANT_ADMIN_SECRET ??
    (facts.demo?.tenantId === tenantId ? facts.demo.adminSecret : undefined);
  if (!url)
    throw usageError(
      `no Worker to talk to: start the local stack (npm start; looked for ${stackFactsFile()}) or pass --url`,
      'config',
    );
  if (!secret)
    throw usageError(
      `config ${sub} needs the admin secret of ${tenantId} (printed by create): --admin-secret or $TENANT_ADMIN_SECRET`,
      'config',
    );
  const t = { url, secret };
  const api = '/v1/tenants';
  if (sub === 'get') {
    print(JSON.stringify(await call(t, 'GET', `/${tenantId}/config`, undefined, api), null, 2));
    return EXIT.ok;
  }
  if (!values.file) throw usageError(`config ${sub} needs --file config.json`, 'config');
  const file = values.file;
  const candidate = await readJsonFile(file);
  if (sub === 'push') {
    print(JSON.stringify(await call(t, 'PUT', `/${tenantId}/config`, candidate, api), null, 2));
    return EXIT.ok;
  }
  const parsed = parseTenantConfig(
    typeof candidate === 'object' && candidate !== null && !Array.isArray(candidate)
      ? { tenantId, ...candidate }
      : candidate,
  );
  if (!parsed.ok)
    throw new Error(`${file} would be refused (invalid tenant config):\n  ${parsed.problems.join('\n  ')}`);
  const stored = `${JSON.stringify(await call(t, 'GET', `/${tenantId}/config`, undefined, api), null, 2)}\n`;
  const next = `${JSON.stringify(parsed.config, null, 2)}\n`;
  print(
    stored === next
      ? `no changes: ${file} is ${tenantId}'s stored config`
      : createTwoFilesPatch(`${tenantId} (stored)`, file, stored, next, '', '', { context: 3 }).trimEnd(),
  );
  return EXIT.ok;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  runAsScript(runTenantCli, () => tenantUsage());
}
