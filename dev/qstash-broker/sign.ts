import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

/** Lifetime of a delivery signature; QStash uses 5 minutes. */
export const SIGNATURE_TTL_S = 300;

/**
 * The `Upstash-Signature` JWT for one delivery attempt: HS256 keyed with the signing key string's UTF-8
 * bytes, `sub` = destination as published, `body` = base64url(SHA-256(raw body)). The hash keeps its `=`
 * padding like real QStash; `Receiver.verify` strips padding on both sides before comparing.
 */
export async function signDelivery(
  signingKey: string,
  destination: string,
  body: Uint8Array,
  nowMs = Date.now(),
): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  const bodyHash = createHash('sha256').update(body).digest('base64').replaceAll('+', '-').replaceAll('/', '_');
  return new SignJWT({ body: bodyHash })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(destination)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + SIGNATURE_TTL_S)
    .setJti(`jwt_${randomBytes(12).toString('hex')}`)
    .sign(new TextEncoder().encode(signingKey));
}
