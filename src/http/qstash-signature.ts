import { Receiver } from '@upstash/qstash';
import type { Context } from 'hono';
import type { AppContext } from './app-context.js';
import { readBodyLimited } from './errors.js';

/** Seconds of clock skew tolerated on the signature's nbf/exp (QStash's clock vs the edge's). */
export const QSTASH_CLOCK_TOLERANCE_S = 5;

/**
 * Reads the raw body and verifies `Upstash-Signature` against the current and next signing
 * keys and the URL QStash was asked to call (not the Host of this request). Any failure is the
 * same answer: not verified.
 */
export async function verifyQStashRequest(c: Context<AppContext>, path: string, limit: number): Promise<{ ok: true; body: string } | { ok: false; status: 401 | 413 | 400; error: string }> {
  const body = await readBodyLimited(c, limit);
  if (!body.ok) return body;
  const { env } = c.get('services');
  const signature = c.req.header('Upstash-Signature');
  if (!signature) return { ok: false, status: 401, error: 'missing Upstash-Signature header' };
  const receiver = new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY });
  try {
    await receiver.verify({ signature, body: body.text, url: `${env.PUBLIC_URL.replace(/\/$/, '')}${path}`, clockTolerance: QSTASH_CLOCK_TOLERANCE_S });
  } catch {
    return { ok: false, status: 401, error: 'Upstash-Signature does not verify' };
  }
  return { ok: true, body: body.text };
}
