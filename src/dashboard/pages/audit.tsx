import type { FC } from 'hono/jsx';
import type { AuditEntry } from '../../tenants/audit-log.js';
import type { DashboardSession } from '../auth/sessions.js';
import { BASE } from '../dashboard-context.js';
import { Layout } from './layout.js';
import { DataTable } from './data-table.js';

/** The tenant's audit log, newest first, 50 a page: who changed what, when (never a secret or a contact's words). */
export const AuditPage: FC<{
  dash: DashboardSession;
  tenantName: string;
  entries: AuditEntry[];
  offset: number;
  next: number | null;
}> = ({ dash, tenantName, entries, offset, next }) => (
  <Layout title="Audit log" section="health" dash={dash} tenantName={tenantName}>
    <DataTable columns={['When', 'Who', 'What', 'Detail']}>
      {entries.map((e) => (
        <tr>
          <td>{e.at.replace('T', ' ').slice(0, 19)}</td>
          <td>{e.actor}</td>
          <td>{e.action}</td>
          <td>{e.detail}</td>
        </tr>
      ))}
    </DataTable>
    {entries.length === 0 ? <p>Nothing recorded yet.</p> : null}
    <nav aria-label="Pages" class="actions">
      {offset > 0 ? <a href={`${BASE}/audit?offset=${Math.max(0, offset - 50)}`}>← Newer</a> : null}
      {next !== null ? <a href={`${BASE}/audit?offset=${next}`}>Older →</a> : null}
    </nav>
  </Layout>
);
