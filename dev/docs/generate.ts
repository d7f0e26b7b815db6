/**
 * `npm run docs`: regenerates the README's generated sections (deploy checklist, config
 * reference, ManyChat request template). `npm run docs -- --check` exits 1 if README.md is out
 * of date instead of writing it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applySections } from './readme-sections.js';

const file = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'README.md');
const current = await readFile(file, 'utf8');
const next = applySections(current);
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error('README.md is out of date: run `npm run docs`');
    process.exit(1);
  }
  console.log('README.md generated sections are up to date');
} else if (next !== current) {
  await writeFile(file, next);
  console.log('README.md: generated sections rewritten');
} else {
  console.log('README.md: generated sections already up to date');
}
