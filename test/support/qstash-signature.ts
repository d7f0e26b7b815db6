import { SignJWT } from 'jose';

/**
 * Test-only: an `Upstash-Signature` made the way QStash (and dev/qstash-broker) makes one — HS256
 * keyed with the signing key's UTF-8 bytes, `iss` Upstash, `sub` the destination URL, `body` =
 * base64url(SHA-256(raw body)) — with knobs to forge each way a signature can be wrong. Web Crypto
 * only, so it runs in workerd as well as in Node.
 */
export interface SignOptions {
  key: string;
  url: string;
  body: string;
  /** Unix seconds the token was issued; default now. */
  issuedAt?: number;
  /** Lifetime in seconds; default 300 like QStash. */
  ttlSeconds?: number;
  issuer?: string;
  /** Sign this body's hash instead of `body` (to alter the body after signing). */
  hashOf?: string;
}

async function sha256Base64Url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const b of digest) binary += String.fromCharCode(b);
  // QStash keeps the `=` padding; Receiver strips it on both sides.
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_');
}

export async function signQStashDelivery(opts: SignOptions): Promise<string> {
  const iat = opts.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ body: await sha256Base64Url(opts.hashOf ?? opts.body) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(opts.issuer ?? 'Upstash')
    .setSubject(opts.url)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + (opts.ttlSeconds ?? 300))
    .setJti(`jwt_${crypto.randomUUID().replaceAll('-', '')}`)
    .sign(new TextEncoder().encode(opts.key));
}
