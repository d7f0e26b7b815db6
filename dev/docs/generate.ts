/**
 * `npm run docs`: regenerates the README's generated sections (deploy checklist, config
 * reference, ManyChat request template), docs/manychat-setup.md and the dashboard's copy of it. `npm run docs -- --check` exits 1 if README.md is out
 * of date instead of writing it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applySections, manychatGuideModule, manychatSetupPage } from './readme-sections.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readmeFile = join(root, 'README.md');
const pageFile = join(root, 'docs', 'manychat-setup.md');
const readme = applySections(await readFile(readmeFile, 'utf8'));
const guideFile = join(root, 'src', 'dashboard', 'setup', 'manychat-guide.generated.ts');
const outputs: [string, string][] = [
  [readmeFile, readme],
  [pageFile, manychatSetupPage(readme)],
  [guideFile, manychatGuideModule(manychatSetupPage(readme))],
];
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, next] of outputs) {
  const current = await readFile(file, 'utf8').catch(() => '');
  if (next === current) continue;
  stale++;
  if (check) console.error(`${file} is out of date: run \`npm run docs\``);
  else await writeFile(file, next);
}
if (check && stale) process.exit(1);
console.log(check ? 'generated docs are up to date' : `generated docs: ${stale} file(s) rewritten`);
