import { timingSafeEqual } from '../security/constant-time.js';

/**
 * Button payloads the agent hands out (ManyChat `dynamic_block_callback`) come back to the
 * webhook without the tenant's secret header, so each carries an HMAC over everything it claims:
 * tenant, contact, row, answer and the row's single-use nonce. A forged or edited button fails.
 */
export interface CallbackClaim {
  tenantId: string;
  contactId: string;
  pendingId: string;
  answer: 'yes' | 'no';
  nonce: string;
}

async function mac(secret: string, claim: CallbackClaim): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(`callback:${secret}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const text = ['v1', claim.tenantId, claim.contactId, claim.pendingId, claim.answer, claim.nonce].join('\n');
  const sig = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text));
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
