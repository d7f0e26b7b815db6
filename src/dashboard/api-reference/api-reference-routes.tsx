import { Hono } from 'hono';
import type { DashboardContext } from '../dashboard-context.js';
import { BASE } from '../dashboard-context.js';
import { Layout } from '../pages/layout.js';
import { openApiDocument } from './openapi-document.js';

type Operation = {
  summary?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
};

/** `/dashboard/api`: the tenant API reference page, and the OpenAPI document it is drawn from. */
export function apiReferenceRoutes() {
  const app = new Hono<DashboardContext>();
  app.get('/openapi.json', (c) => c.json(openApiDocument(new URL(c.req.url).origin)));
  app.get('/', (c) => {
    const doc = openApiDocument(new URL(c.req.url).origin);
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, Operation>).map(([method, op]) => ({ path, method, op })),
    );
    return c.html(
      <Layout title="API reference" section="api" dash={c.get('dash')} tenantName={c.get('tenant').config.displayName}>
        <p>{doc.info.description.replace(/`/g, '')}</p>
        <p>
          Your tenant id is <code>{c.get('dash').tenantId}</code>. The machine-readable document:{' '}
          <a href={`${BASE}/api/openapi.json`}>OpenAPI 3.1 (JSON)</a>.
        </p>
        {operations.map(({ path, method, op }) => (
          <section class="card" aria-labelledby={`op-${method}-${path.replace(/[^a-z0-9]+/gi, '-')}`}>
            <h2 id={`op-${method}-${path.replace(/[^a-z0-9]+/gi, '-')}`}>
              <code>
                {method.toUpperCase()} {path}
              </code>
            </h2>
            <p>{op.summary}</p>
            {op.requestBody ? (
              <details>
                <summary>Request body schema</summary>
                <pre>{JSON.stringify(op.requestBody.content['application/json']?.schema, null, 2)}</pre>
              </details>
            ) : null}
            <ul>
              {Object.entries(op.responses).map(([code, r]) => (
                <li>
                  <strong>{code}</strong> {r.description}
                  {r.content ? (
                    <details>
                      <summary>{`${code} schema`}</summary>
                      <pre>{JSON.stringify(r.content['application/json']?.schema, null, 2)}</pre>
                    </details>
                  ) : null}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </Layout>,
    );
  });
  return app;
}
