import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../dev/stack.js';
import {
  applySections,
  envVariableNames,
  GENERATED_PAGES,
  manychatGuideModule,
} from '../../dev/docs/readme-sections.js';
import { ENV_VARIABLE_DOCS } from '../../dev/docs/env-reference.js';
import { MANYCHAT_REQUEST_BODY, MANYCHAT_REQUEST_HEADERS } from '../../dev/docs/manychat-template.js';

const readme = () => readFile(join(ROOT, 'README.md'), 'utf8');
const doc = (name: string) => readFile(join(ROOT, 'docs', name), 'utf8');

/** The variable names in the deploy checklist's table (docs/deploy.md). */
function tableVariables(text: string): string[] {
  const section = text.slice(text.indexOf('<!-- generated:env:start'), text.indexOf('<!-- generated:env:end'));
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!);
}

describe('the deploy checklist agrees with the env schema (src/env.ts)', () => {
  it('lists every schema variable, and nothing else', async () => {
    const listed = tableVariables(await doc('deploy.md'));
    expect(listed.length).toBeGreaterThan(10);
    expect([...listed].sort()).toEqual([...envVariableNames()].sort());
  });

  it('documents every schema variable, and documents no variable the schema lacks', () => {
    expect(Object.keys(ENV_VARIABLE_DOCS).sort()).toEqual([...envVariableNames()].sort());
  });

  it('wrangler.toml names no variable the schema does not know, and its [vars] are documented as vars', async () => {
    const toml = await readFile(join(ROOT, 'wrangler.toml'), 'utf8');
    const named = new Set([...toml.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)].map((m) => m[0]));
    const vars = toml.slice(toml.indexOf('[vars]'), toml.indexOf('\n[', toml.indexOf('[vars]') + 1));
    const varKeys = [...vars.matchAll(/^([A-Z][A-Z0-9_]*)\s*=/gm)].map((m) => m[1]!);
    for (const key of varKeys) named.add(key);
    const schema = new Set(envVariableNames());
    expect([...named].filter((n) => !schema.has(n))).toEqual([]);
    expect(varKeys.length).toBeGreaterThan(0);
    for (const key of varKeys) expect(ENV_VARIABLE_DOCS[key]?.kind, key).toBe('var');
  });

  it('.dev.vars.example names no variable the schema does not know', async () => {
    const example = await readFile(join(ROOT, '.dev.vars.example'), 'utf8');
    const named = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    const schema = new Set(envVariableNames());
    expect(named.filter((n) => !schema.has(n))).toEqual([]);
  });

  it('the generated sections are what `npm run docs` writes (env table, config reference, ManyChat template)', async () => {
    for (const [page, names] of Object.entries(GENERATED_PAGES)) {
      const text = await readFile(join(ROOT, page), 'utf8');
      expect(applySections(text, names), `${page} is out of date: run \`npm run docs\``).toBe(text);
    }
  });

  it("the dashboard's copy of docs/manychat-setup.md (/dashboard/setup/manychat) is the page, regenerated", async () => {
    const page = await doc('manychat-setup.md');
    expect(page).toContain('{{Full Contact Data}}');
    // The dashboard's copy (/dashboard/setup/manychat) is the same page.
    const { MANYCHAT_SETUP_GUIDE } = await import('../../src/dashboard/setup/manychat-guide.generated.js');
    expect(manychatGuideModule(page)).toContain(JSON.stringify(MANYCHAT_SETUP_GUIDE));
    expect(MANYCHAT_SETUP_GUIDE).not.toContain('<!-- generated:');
  });

  it('the repository stands alone: no file points outside it (../shared, the design notes, protocols/*.md)', async () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(ts|md|json|cjs|toml)$/.test(f) && f !== 'package-lock.json' && f !== 'test/node/docs.test.ts');
    const outside: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8').catch(() => '');
      if (/\.\.\/shared\/|\/work\/shared|(?<!docs\/)\bprotocols\/[a-z-]+\.md|\bDESIGN\.md|\bSTYLE\.md/.test(text))
        outside.push(file);
    }
    expect(outside).toEqual([]);
    for (const doc of ['docs/architecture.md', 'docs/protocols.md'])
      expect(await readFile(join(ROOT, doc), 'utf8')).toMatch(/\S/);
  });

  it('the docs no longer say npm start writes .dev.vars, and wrangler.toml neither', async () => {
    const toml = await readFile(join(ROOT, 'wrangler.toml'), 'utf8');
    expect(toml).not.toMatch(/npm start` writes/);
    for (const text of [await readme(), await doc('deploy.md'), await doc('local-stack.md')])
      expect(text).not.toMatch(/npm start` writes [^\n]*\.dev\.vars/);
  });
});

/** GitHub's anchor for a heading: lower-case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

describe('every link in the README and docs/ resolves', () => {
  it('relative links name files that exist, and #anchors headings that exist', async () => {
    const pages = [
      'README.md',
      ...execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'docs'], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .split('\n')
        .filter((f) => f.endsWith('.md')),
    ];
    expect(pages.length).toBeGreaterThan(10);
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const text = (await readFile(join(ROOT, page), 'utf8')).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        checked++;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path ? join(ROOT, dirname(page), path) : join(ROOT, page);
        if (!existsSync(file)) {
          broken.push(`${page}: ${target} (no such file)`);
          continue;
        }
        if (anchor && file.endsWith('.md')) {
          const headings = [...(await readFile(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!));
          if (!headings.includes(anchor)) broken.push(`${page}: ${target} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(15);
  });

  it('the README is a front door: about 200 lines, the two commands, one go-live path, the fast tier named', async () => {
    const text = await readme();
    expect(text.split('\n').length).toBeLessThanOrEqual(260);
    expect(text).toContain('npm ci && npm start');
    expect(text).toContain('npm test');
    expect(text).toContain('npm run test:fast');
    expect(text).toMatch(/## Go live\n/);
  });

  it("the go-live path's request template is the generated one (body, secret header, URL)", async () => {
    const text = await readme();
    const squash = (t: string) => t.replace(/\s+/g, '');
    const body = /```json\n\s*(\{ "(?:channel|contact)"[^\n]+)\n/.exec(text)?.[1];
    expect(squash(body ?? '')).toBe(squash(MANYCHAT_REQUEST_BODY));
    for (const h of MANYCHAT_REQUEST_HEADERS.filter((x) => x.name.startsWith('x-')))
      expect(text).toContain(`\`${h.name}: <WEBHOOK_SECRET>\``);
    expect(text).toContain('`https://<worker>/v1/manychat/my-studio`');
  });
});

describe('the tenant API routes are all documented: docs/http-api.md and the OpenAPI reference', () => {
  /** `METHOD /:tenant/…` of every route a file registers with a literal path. */
  async function routesOf(file: string): Promise<{ method: string; path: string }[]> {
    const text = await readFile(join(ROOT, file), 'utf8');
    return [...text.matchAll(/app\.(get|post|put|delete)\('(\/:tenant[^']*)'/g)].map((m) => ({
      method: m[1]!,
      path: `/v1/tenants${m[2]!}`,
    }));
  }

  it('names every route of the tenant API (src/routes/tenant-api.ts and what it registers)', async () => {
    const routes = (
      await Promise.all(
        ['src/routes/tenant-api.ts', 'src/routes/turn-records.ts', 'src/routes/notification-secret.ts'].map(routesOf),
      )
    ).flat();
    expect(routes.map((r) => r.path)).toContain('/v1/tenants/:tenant/approvals/:id/approve-with-changes');
    const page = await doc('http-api.md');
    const { openApiDocument } = await import('../../src/dashboard/api-reference/openapi-document.js');
    const paths = openApiDocument('https://worker.example').paths as Record<string, Record<string, unknown>>;
    const missing: string[] = [];
    for (const { method, path } of routes) {
      // In the page: the path in a route cell, followed by the end of the code span or a query.
      if (!new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\`?]`).test(page))
        missing.push(`http-api.md: ${path}`);
      const openApiPath = path.replace(/:([A-Za-z]+)/g, '{$1}');
      if (!paths[openApiPath]?.[method]) missing.push(`OpenAPI: ${method.toUpperCase()} ${openApiPath}`);
    }
    expect(missing).toEqual([]);
  });
});
