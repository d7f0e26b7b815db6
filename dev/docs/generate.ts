/**
 * `npm run docs`: regenerates the docs' generated sections (the deploy checklist's env table, the
 * config reference, the ManyChat request template: GENERATED_PAGES) and the dashboard's bundled
 * copy of docs/manychat-setup.md. `npm run docs -- --check` exits 1 naming each page that is out
 * of date instead of writing it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applySections, GENERATED_PAGES, MANYCHAT_GUIDE_MODULE, manychatGuideModule } from './readme-sections.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outputs: [string, string][] = [];
for (const [page, names] of Object.entries(GENERATED_PAGES)) {
  outputs.push([join(root, page), applySections(await readFile(join(root, page), 'utf8'), names)]);
}
const manychatPage = outputs.find(([file]) => file.endsWith(join('docs', 'manychat-setup.md')))![1];
outputs.push([join(root, MANYCHAT_GUIDE_MODULE), manychatGuideModule(manychatPage)]);

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
