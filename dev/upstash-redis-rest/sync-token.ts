import { randomBytes } from 'node:crypto';

/**
 * Read-your-writes (`upstash-sync-token`). Upstash answers every request with a token naming how
 * far the primary had got; the client sends the last one back so a replica waits until it has
 * caught up. Behind this bridge there is one Redis, so every read already sees every write and
 * the token the client sends is never needed (and never checked: a token set by hand, which
 * Upstash tolerates, must not fail a request). The bridge still answers a fresh token per
 * request, as Upstash does after a write, so code that reads `redis.readYourWritesSyncToken`
 * (to hand it to another client instance) sees it move.
 */
export class SyncTokens {
  private readonly boot = randomBytes(4).toString('hex');
  private seq = 0;

  next(): string {
    this.seq += 1;
    return `${this.boot}-${this.seq}`;
  }
}
