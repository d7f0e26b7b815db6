import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { session, uniqueId } from '../../test/support/workers-env.js';
import { AUDIT_LIMIT, auditEntry, pushAuditEntry, readAuditPage } from './audit-log.js';

/** A list of its own (the operator's real log is shared with every test file that acts as the operator). */
const key = `test:audit:${uniqueId('pg')}`;
afterAll(async () => {
  await session().one((r) => r.del(key));
});

const Schema = z.object({ at: z.string(), n: z.number(), detail: z.string() });

describe('audit lists: appended newest first, read in pages', () => {
  it('pages through every entry exactly once, newest first; `next` is null on the last page', async () => {
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    await session().pipeline((p) => {
      for (let n = 1; n <= 7; n++) pushAuditEntry(p, key, auditEntry({ n, detail: `entry ${n}` }, new Date(t0 + n)));
    });
    const pages = [
      await readAuditPage(session(), key, Schema, { offset: 0, limit: 3 }),
      await readAuditPage(session(), key, Schema, { offset: 3, limit: 3 }),
      await readAuditPage(session(), key, Schema, { offset: 6, limit: 3 }),
    ];
    expect(pages.map((p) => p.entries.map((e) => e.n))).toEqual([[7, 6, 5], [4, 3, 2], [1]]);
    expect(pages.map((p) => p.next)).toEqual([3, 6, null]);
    expect(pages[0]!.entries[0]).toEqual({ at: new Date(t0 + 7).toISOString(), n: 7, detail: 'entry 7' });
    // Exactly a page's worth left: no next page.
    expect((await readAuditPage(session(), key, Schema, { offset: 4, limit: 3 })).next).toBeNull();
  });

  it('bounds a detail to 1000 characters and the list to AUDIT_LIMIT entries', async () => {
    expect(auditEntry({ detail: 'x'.repeat(5000) }, new Date(0)).detail).toHaveLength(1000);
    const bounded = `${key}:bounded`;
    await session().one((r) =>
      r.eval(
        `for i = 1, tonumber(ARGV[1]) do redis.call('LPUSH', KEYS[1], 'f') end return 1`,
        [bounded],
        [String(AUDIT_LIMIT)],
      ),
    );
    await session().pipeline((p) => pushAuditEntry(p, bounded, { n: 0, at: 'x', detail: 'newest' }));
    expect(await session().one((r) => r.llen(bounded))).toBe(AUDIT_LIMIT);
    expect(JSON.parse(String(await session().one((r) => r.lindex(bounded, 0))))).toMatchObject({ detail: 'newest' });
    await session().one((r) => r.del(bounded));
  });
});
