import { timingSafeEqual } from '../../core/security/constant-time.js';

/**
 * Button payloads the agent hands out (ManyChat `dynamic_block_callback`) come back to the
 * webhook without the tenant's secret header, so each carries an HMAC over everything it claims.
 * A forged or edited button fails. Two kinds:
 * - `confirm`: a Yes/No on a pending confirmation row (tenant, contact, row, answer, the row's
 *   single-use nonce);
 * - `suggest`: a quick reply the model suggested; pressing it sends its caption as the contact's
 *   next message (tenant, contact, caption, a nonce that makes the press one delivery).
 */
export type CallbackClaim =
  | { kind: 'confirm'; tenantId: string; contactId: string; pendingId: string; answer: 'yes' | 'no'; nonce: string }
  | { kind: 'suggest'; tenantId: string; contactId: string; text: string; nonce: string };

function claimText(claim: CallbackClaim): string {
  return claim.kind === 'confirm'
    ? ['v1', 'confirm', claim.tenantId, claim.contactId, claim.pendingId, claim.answer, claim.nonce].join('\n')
    : ['v1', 'suggest', claim.tenantId, claim.contactId, claim.text, claim.nonce].join('\n');
}

async function mac(secret: string, claim: CallbackClaim): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(`callback:${secret}`),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const sig = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(claimText(claim)));
  return [...new Uint8Array(sig)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function signCallback(secret: string, claim: CallbackClaim): Promise<string> {
  return mac(secret, claim);
}

export async function verifyCallback(secret: string, claim: CallbackClaim, sig: string): Promise<boolean> {
  const expected = await mac(secret, claim);
  const enc = new TextEncoder();
  return timingSafeEqual(enc.encode(expected), enc.encode(sig));
}
