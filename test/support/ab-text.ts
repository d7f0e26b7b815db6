/**
 * Deterministic text of `a` and `b` (a linear congruential generator): different for each seed,
 * the same on every run. Over `a[ab]{N}z` it makes a DFA build a state for nearly every character.
 */
export function abText(length: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += x & 65536 ? 'a' : 'b';
  }
  return out;
}
