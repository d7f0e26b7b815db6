import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/security/digest.js';

/**
 * Names the exact config a turn ran with: a replay with the same digest rebuilds the same requests.
 * Computed once per config object: the isolate keeps a tenant's parsed config across its turns
 * (src/tenants/tenant-cache.ts) and never mutates it, and canonicalising plus hashing the whole
 * config was per-turn CPU spent on the same answer.
 */
export function configDigest(config: object): Promise<string> {
  let digest = digests.get(config);
  if (!digest) {
    digest = sha256Hex(canonicalJson(config));
    digests.set(config, digest);
  }
  return digest;
}
const digests = new WeakMap<object, Promise<string>>();
