import { Receiver } from '@upstash/qstash';
import type { MiddlewareHandler } from 'hono';
import type { SignedContext } from '../app-context.js';
import { jsonError } from '../errors.js';

/**
 * Seconds of clock skew tolerated on the signature's nbf/exp (QStash's clock vs the edge's), both
 * ways. 5 s made every delivery 401 when QStash ran 6 s ahead; real skews are tens of seconds. A
 * replay inside the window is harmless: deliveries are deduplicated and actions claimed in the ledger.
 */
export const QSTASH_CLOCK_TOLERANCE_S = 60;

/**
 * Verifies `Upstash-Signature` over the raw body against the current and next signing keys and
 * the URL QStash was asked to call (`PUBLIC_URL` + `path`, not the Host of this request). Any
 * failure — bad key, expired, wrong URL, body altered, malformed token — is the same 401. The
 * verified bytes are handed on as `c.var.signedBody`; nothing is parsed before this.
 */
export function requireQStashSignature(path: string): MiddlewareHandler<SignedContext> {
  return async (c, next) => {
    const body = await c.req.text();
    const signature = c.req.header('Upstash-Signature');
    if (!signature) return jsonError(c, 401, 'missing Upstash-Signature header');
    const { env } = c.get('services');
    const receiver = new Receiver({
      currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY,
      nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY,
    });
    try {
      await receiver.verify({
        signature,
        body,
        url: `${env.PUBLIC_URL.replace(/\/$/, '')}${path}`,
        clockTolerance: QSTASH_CLOCK_TOLERANCE_S,
      });
    } catch {
      return jsonError(c, 401, 'Upstash-Signature does not verify');
    }
    c.set('signedBody', body);
    await next();
  };
}
