/**
 * Constant-time comparison of two secrets. Both sides are hashed first so the comparison takes
 * the same time whatever their lengths; `crypto.subtle.timingSafeEqual` is workerd's primitive.
 */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [da, db] = await Promise.all([
    crypto.subtle.digest('SHA-256', enc.encode(a)),
    crypto.subtle.digest('SHA-256', enc.encode(b)),
  ]);
  return timingSafeEqual(new Uint8Array(da), new Uint8Array(db));
}

/** Equal-length byte arrays compared without an early exit. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const subtle = crypto.subtle as SubtleCrypto & {
    timingSafeEqual?: (x: ArrayBufferView, y: ArrayBufferView) => boolean;
  };
  if (a.length !== b.length) return false;
  if (typeof subtle.timingSafeEqual === 'function') return subtle.timingSafeEqual(a, b);
  // Outside workerd (Node tools) fall back to an XOR fold, which has no data-dependent branch.
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
