import { DeadLetterSchema, type DeadLetter } from '../dead-letter.js';
import { tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';

/**
 * The dead-letter store: the owner of the tenant's dead-letter list (`deadLetters`, newest first,
 * each item a JSON `DeadLetter`) and of the parsing of its replies. The ledger's transition script
 * (outbox/ledger.ts) pushes an item in the same step that makes a row dead or unknown, and takes
 * it off in the same step a re-drive resets the row: it takes the key from `deadLetterKeys`.
 */

/** The dead-letter key a multi-structure script needs for a tenant. */
export function deadLetterKeys(tenantId: string): { list: string } {
  return { list: tenantKeys(tenantId).deadLetters };
}

/** The newest `limit` letters (one round trip); items that are not letters are left out. */
export async function readDeadLetters(session: RedisSession, tenantId: string, limit: number): Promise<DeadLetter[]> {
  const raw = await session.one((r) => r.lrange(deadLetterKeys(tenantId).list, 0, Math.max(0, limit - 1)));
  return raw.map((item) => DeadLetterSchema.safeParse(parseJson(item))).flatMap((p) => (p.success ? [p.data] : []));
}

/** Removes the contact's items from the list (the JSON names the contact). */
const DROP_CONTACT_LETTERS_LUA = `
local removed = 0
for _, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, letter = pcall(cjson.decode, item)
  if ok and type(letter) == 'table' and letter.contactId == ARGV[1] then
    removed = removed + redis.call('LREM', KEYS[1], 0, item)
  end
end
return removed
`;

type Pipeline = Parameters<Parameters<RedisSession['pipeline']>[0]>[0];

/** Queues the removal of a contact's letters into a caller's pipeline (a deletion): one reply, how many went. */
export function queueDropContactDeadLetters(p: Pipeline, tenantId: string, contactId: string): void {
  p.eval(DROP_CONTACT_LETTERS_LUA, [deadLetterKeys(tenantId).list], [contactId]);
}
