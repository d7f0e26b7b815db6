/**
 * Meta's webhook signature (docs/protocols.md, Messenger): `X-Hub-Signature-256:
 * sha256=<hex>`, an HMAC-SHA256 of the request body keyed with the app secret. Meta signs the
 * bytes it sends (an escaped-unicode JSON form), so the check runs over the raw bytes received,
 * never over JSON parsed and serialised again. WebCrypto's `verify` compares the MAC itself
 * (no early exit on the first differing byte), so no hand-written comparison is needed.
 * The legacy `X-Hub-Signature: sha1=…` is not accepted: SHA-1 alone never authenticates.
 */
export const HUB_SIGNATURE_HEADER = 'x-hub-signature-256';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** Why a signature header cannot be checked at all, or the MAC bytes it carries. */
export function parseHubSignature(
  header: string | undefined,
): { ok: true; mac: Uint8Array } | { ok: false; problem: string } {
  if (header === undefined || header === '') return { ok: false, problem: `missing ${HUB_SIGNATURE_HEADER} header` };
  const hex = SIGNATURE.exec(header.trim())?.[1];
  if (!hex) return { ok: false, problem: `${HUB_SIGNATURE_HEADER} must be "sha256=" and 64 hex digits` };
  const mac = new Uint8Array(32);
  for (let i = 0; i < 32; i++) mac[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return { ok: true, mac };
}

function hmacKey(appSecret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', new TextEncoder().encode(appSecret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    usage,
  ]);
}

/** Whether `mac` is the app secret's HMAC-SHA256 of exactly these bytes. */
export async function verifyHubSignature(body: Uint8Array, mac: Uint8Array, appSecret: string): Promise<boolean> {
  return crypto.subtle.verify('HMAC', await hmacKey(appSecret, 'verify'), mac, body);
}

/** The header value Meta would send for these bytes (tests, the local sandbox, `npm start`'s curl). */
export async function signHubBody(body: Uint8Array | string, appSecret: string): Promise<string> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(appSecret, 'sign'), bytes));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
