import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumPath, planPreflight, type Need } from './preflight.js';
import { ROOT } from './stack.js';

const redis: Need = { name: 'redis-server', aptPackage: 'redis-server', why: 'storage tests' };
const chromium: Need = { name: 'Chromium at /usr/bin/chromium', aptPackage: 'chromium', why: 'browser tests' };

describe('preflight: what npm cannot bring', () => {
  it('nothing missing: ready, whoever runs it', () => {
    expect(planPreflight('test', [], { isRoot: false, hasAptGet: false, noInstall: false })).toEqual({ kind: 'ready' });
  });

  it('root on Debian installs every missing package in one apt-get, as .ci/run did', () => {
    expect(planPreflight('test', [redis, chromium], { isRoot: true, hasAptGet: true, noInstall: false })).toEqual({
      kind: 'install',
      packages: ['redis-server', 'chromium'],
    });
  });

  it('not root: stops naming the one command, with sudo', () => {
    const plan = planPreflight('test', [redis, chromium], { isRoot: false, hasAptGet: true, noInstall: false });
    expect(plan.kind).toBe('fail');
    expect(plan.kind === 'fail' && plan.message).toContain('Run: sudo apt-get install -y redis-server chromium');
  });

  it('--no-install as root names the command without sudo; no apt-get: says which packages', () => {
    const root = planPreflight('start', [redis], { isRoot: true, hasAptGet: true, noInstall: true });
    expect(root.kind === 'fail' && root.message).toMatch(
      /^npm start needs redis-server .*\nRun: apt-get install -y redis-server$/,
    );
    const other = planPreflight('test', [chromium], { isRoot: false, hasAptGet: false, noInstall: false });
    expect(other.kind === 'fail' && other.message).toContain("install chromium with your system's package manager");
  });

  it('CHROMIUM_PATH chooses the browser; default Debian’s', () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
  });

  it('the real script on a machine without redis-server or Chromium fails within seconds, naming the command', () => {
    // What starting node with tsx costs here (seconds on a quiet machine, more on a loaded one): the
    // preflight may add only its checks to it — no apt-get, no waiting on a timeout.
    const bare = Date.now();
    spawnSync(process.execPath, ['--import', 'tsx', '-e', '0'], { cwd: ROOT });
    const startup = Date.now() - bare;
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'dev', 'preflight.ts'), 'test', '--no-install'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          PATH: '/nonexistent',
          CHROMIUM_PATH: '/nonexistent/chromium',
          HOME: process.env.HOME ?? '/tmp',
        } as unknown as NodeJS.ProcessEnv,
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm test needs redis-server');
    expect(run.stderr).toContain('Chromium at /nonexistent/chromium');
    expect(run.stderr).toMatch(
      /Run: (sudo )?apt-get install -y redis-server chromium|install redis-server and chromium/,
    );
    expect(Date.now() - started).toBeLessThan(startup + 3000);
  }, 120_000);

  it('on this machine (redis-server and Chromium present) it passes', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'dev', 'preflight.ts'), 'test', '--no-install'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);
});
