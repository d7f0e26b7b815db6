import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../dev/stack.js';
import { applySections, envVariableNames, manychatSetupPage } from '../../dev/docs/readme-sections.js';
import { ENV_VARIABLE_DOCS } from '../../dev/docs/env-reference.js';

const readme = () => readFile(join(ROOT, 'README.md'), 'utf8');

/** The variable names in the README's deploy checklist table. */
function tableVariables(text: string): string[] {
  const section = text.slice(text.indexOf('<!-- generated:env:start'), text.indexOf('<!-- generated:env:end'));
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!);
}

describe('the deploy checklist agrees with the env schema (src/env.ts)', () => {
  it('lists every schema variable, and nothing else', async () => {
    const listed = tableVariables(await readme());
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

  it("the README's generated sections are what `npm run docs` writes (env table, config reference, ManyChat template)", async () => {
    const text = await readme();
    expect(applySections(text), 'README.md is out of date: run `npm run docs`').toBe(text);
  });

  it("docs/manychat-setup.md and the dashboard's copy (/dashboard/setup/manychat) are the README section, regenerated", async () => {
    const page = await readFile(join(ROOT, 'docs', 'manychat-setup.md'), 'utf8');
    expect(page).toBe(manychatSetupPage(await readme()));
    expect(page).toContain('{{Full Contact Data}}');
    // The dashboard's copy (/dashboard/setup/manychat) is the same page.
    const { MANYCHAT_SETUP_GUIDE } = await import('../../src/dashboard/setup/manychat-guide.generated.js');
    expect(MANYCHAT_SETUP_GUIDE).toBe(page);
  });

  it('the repository stands alone: no file points outside it (../shared, the design notes, protocols/*.md)', async () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => /\.(ts|md|json|cjs|toml)$/.test(f) && f !== 'package-lock.json' && f !== 'test/node/docs.test.ts');
    const outside: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8').catch(() => '');
      if (/\.\.\/shared\/|\/work\/shared|(?<!docs\/)\bprotocols\/[a-z-]+\.md|\bDESIGN\.md|\bSTYLE\.md/.test(text)) outside.push(file);
    }
    expect(outside).toEqual([]);
    for (const doc of ['docs/architecture.md', 'docs/protocols.md']) expect(await readFile(join(ROOT, doc), 'utf8')).toMatch(/\S/);
  });

  it('the README no longer says npm start writes .dev.vars, and wrangler.toml neither', async () => {
    const toml = await readFile(join(ROOT, 'wrangler.toml'), 'utf8');
    expect(toml).not.toMatch(/npm start` writes/);
    expect(await readme()).not.toMatch(/npm start` writes [^\n]*\.dev\.vars/);
  });
});
