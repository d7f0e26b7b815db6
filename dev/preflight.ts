/**
 * `npm test` and `npm start` run this first (`pretest`, `prestart`): the two things npm cannot
 * bring — `redis-server` and, for the dashboard's browser tests, Debian's `chromium` — are checked
 * in well under a second. When one is missing and this is a Debian machine where we are root
 * (CI, a fresh container), it is installed with apt-get, as `.ci/run` always did; otherwise the
 * command stops at once with the one line to run. Nothing is skipped for a missing browser: the
 * browser test runs or `npm test` does not start.
 *
 *   tsx dev/preflight.ts test|start [--no-install]
 *
 * `--no-install` (or PREFLIGHT_NO_INSTALL=1) never installs, only names the command.
 * CHROMIUM_PATH points the browser tests at another Chromium (default /usr/bin/chromium).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pingRedis } from './redis-server.js';

/** The Chromium the dashboard's browser tests launch. */
export function chromiumPath(env: Partial<Record<string, string>> = process.env): string {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}

export interface Need {
  /** What is missing, as a person would name it. */
  name: string;
  /** The Debian package that brings it. */
  aptPackage: string;
  why: string;
}

export interface Machine {
  isRoot: boolean;
  hasAptGet: boolean;
  /** The user asked never to install (`--no-install`). */
  noInstall: boolean;
}

export type Plan = { kind: 'ready' } | { kind: 'install'; packages: string[] } | { kind: 'fail'; message: string };

/** What to do about the missing needs: nothing, install them, or stop naming the one command. */
export function planPreflight(command: 'test' | 'start', missing: Need[], machine: Machine): Plan {
  if (!missing.length) return { kind: 'ready' };
  const packages = [...new Set(missing.map((n) => n.aptPackage))];
  if (machine.isRoot && machine.hasAptGet && !machine.noInstall) return { kind: 'install', packages };
  const what = missing.map((n) => `${n.name} (${n.why})`).join(' and ');
  const run = machine.hasAptGet
    ? `${machine.isRoot ? '' : 'sudo '}apt-get install -y ${packages.join(' ')}`
    : `install ${packages.join(' and ')} with your system's package manager`;
  return { kind: 'fail', message: `npm ${command} needs ${what}, which npm cannot install.\nRun: ${run}` };
}

function onPath(binary: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What `command` needs that this machine lacks. */
export async function missingNeeds(command: 'test' | 'start', env: NodeJS.ProcessEnv = process.env): Promise<Need[]> {
  const missing: Need[] = [];
  if (!onPath('redis-server', env)) {
    // npm start reuses a Redis that answers; the tests also start Redis servers of their own.
    const url = new URL(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const answers =
      command === 'start' && (await pingRedis(url.hostname || '127.0.0.1', Number(url.port || 6379), 300));
    if (!answers)
      missing.push({
        name: 'redis-server',
        aptPackage: 'redis-server',
        why: command === 'start' ? `no Redis answers on ${url.host}` : 'storage tests run against a real Redis',
      });
  }
  if (command === 'test' && !executable(chromiumPath(env))) {
    missing.push({
      name: `Chromium at ${chromiumPath(env)}`,
      aptPackage: 'chromium',
      why: "the dashboard's browser tests; CHROMIUM_PATH= for another one",
    });
  }
  return missing;
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command !== 'test' && command !== 'start') {
    console.error('usage: tsx dev/preflight.ts test|start [--no-install]');
    return 2;
  }
  const missing = await missingNeeds(command);
  const machine: Machine = {
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    hasAptGet: onPath('apt-get', process.env),
    noInstall: argv.includes('--no-install') || process.env.PREFLIGHT_NO_INSTALL === '1',
  };
  const plan = planPreflight(command, missing, machine);
  if (plan.kind === 'ready') return 0;
  if (plan.kind === 'fail') {
    console.error(`\npreflight: ${plan.message}\n`);
    return 1;
  }
  console.error(
    `preflight: installing ${plan.packages.join(', ')} (apt-get, as root); npm cannot bring ${plan.packages.length > 1 ? 'them' : 'it'}`,
  );
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  if (!apt(['update', '-qq']) || !apt(['install', '-y', '-qq', ...plan.packages])) {
    console.error(
      `\npreflight: apt-get could not install ${plan.packages.join(' ')}; install ${plan.packages.length > 1 ? 'them' : 'it'} and run npm ${command} again.\n`,
    );
    return 1;
  }
  const still = await missingNeeds(command);
  if (still.length) {
    console.error(`\npreflight: still missing after apt-get: ${still.map((n) => n.name).join(', ')}\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
