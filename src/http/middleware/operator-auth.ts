import type { MiddlewareHandler } from 'hono';
import { secretsEqual } from '../../../core/security/constant-time.js';
import type { AppContext } from '../app-context.js';
import { jsonError } from '../errors.js';

/**
 * The operator API's authentication: `Authorization: Bearer <OPERATOR_SECRET>` (a Worker secret),
 * compared in constant time. A tenant's admin secret is not it. Without OPERATOR_SECRET set the
 * operator API is closed, and says so.
 */
export function requireOperatorSecret(): MiddlewareHandler<AppContext> {
  return async (c, next) => {
    const expected = c.get('services').env.OPERATOR_SECRET;
    const provided = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!provided) return jsonError(c, 401, 'missing Authorization: Bearer <operator secret> header');
    const equal = await secretsEqual(provided, expected ?? '\u0000no operator secret');
    if (!expected) return jsonError(c, 401, 'the operator API is closed: OPERATOR_SECRET is not set');
    if (!equal) return jsonError(c, 401, 'wrong operator secret');
    await next();
  };
}
