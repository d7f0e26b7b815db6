/** Fills an array with random bytes; `crypto.getRandomValues` unless a test scripts the draws. */
export type FillRandom = (array: Uint8Array) => Uint8Array;

const cryptoFill: FillRandom = (array) => crypto.getRandomValues(array);

/**
 * Random bytes as base64url without padding, never starting with "-". Generated secrets and
 * passwords are pasted into command lines after an option (`--admin-secret <value>`), where a
 * leading dash reads as another option; a draw that would start with one is redrawn (it costs
 * under 0.03 bits of the 8 × `bytes` drawn).
 */
export function randomBase64Url(bytes: number, fill: FillRandom = cryptoFill): string {
  for (;;) {
    const drawn = fill(new Uint8Array(bytes));
    const text = btoa(String.fromCharCode(...drawn))
      .replaceAll('+', '-')
      .replaceAll('/', '_')
      .replace(/=+$/, '');
    if (!text.startsWith('-')) return text;
  }
}
