import { createApp } from '../../src/app.js';
import { workerEnv } from '../support/workers-env.js';

/** Calls the tenant JSON API of the real app with the tenant's admin secret. */
export async function tenantApi(
  tenantId: string,
  adminSecret: string,
  method: string,
  path: string,
  body?: unknown,
  /** The Worker's bindings (default: the test Worker's); a test rotating SESSION_SECRET passes its own. */
  env: Record<string, string> = workerEnv,
): Promise<Response> {
  return createApp().fetch(
    new Request(`http://worker.test/v1/tenants/${tenantId}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminSecret}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
    env,
  );
}
