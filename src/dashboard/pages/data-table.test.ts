import { jsx } from 'hono/jsx';
import { describe, expect, it } from 'vitest';
import { DataTable } from './data-table.js';

// Plain .ts (the test projects collect *.test.ts): elements are made with hono's jsx().
const row = jsx('tr', {}, jsx('td', {}, 'today'), jsx('td', {}, 'ada'));

describe("DataTable: the dashboard's one table shape", () => {
  it('column headers scoped to their columns, an optional caption, the rows, in a sideways-scrolling wrapper', async () => {
    const html = String(
      await jsx(DataTable, { columns: ['When', 'Who'], caption: 'Newest first', captionClass: 'muted' }, row),
    );
    expect(html).toBe(
      '<div class="table-wrap"><table><caption class="muted">Newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Who</th></tr></thead><tbody><tr><td>today</td><td>ada</td></tr></tbody></table></div>',
    );
  });

  it('no caption element without a caption; header text is escaped', async () => {
    const html = String(await jsx(DataTable, { columns: ['<b>x</b>'] }));
    expect(html).toBe(
      '<div class="table-wrap"><table><thead><tr><th scope="col">&lt;b&gt;x&lt;/b&gt;</th></tr></thead><tbody></tbody></table></div>',
    );
  });
});
