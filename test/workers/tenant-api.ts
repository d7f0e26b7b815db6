import { createApp } from '../../src/app.js';
import { workerEnv } from '../support/workers-env.js';

/** Calls the tenant JSON API of the real app with the tenant's admin secret. */
export async function tenantApi(
  tenantId: string,
  adminSecret: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return createApp().fetch(
    new Request(`http://worker.test/v1/tenants/${tenantId}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminSecret}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
    workerEnv,
  );
}
