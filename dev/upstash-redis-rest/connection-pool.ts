import type { Redis } from './ioredis.js';

/** Hands out connections exclusively, so MULTI..EXEC and blocking commands never share a socket. */
export class ConnectionPool {
  private readonly idle: Redis[] = [];
  private readonly all = new Set<Redis>();
  private readonly waiting: ((r: Redis) => void)[] = [];

  constructor(
    private readonly create: () => Redis,
    private readonly max: number,
  ) {}

  async use<T>(fn: (r: Redis) => Promise<T>): Promise<T> {
    const redis = await this.acquire();
    try {
      return await fn(redis);
    } finally {
      const next = this.waiting.shift();
      if (next) next(redis);
      else this.idle.push(redis);
    }
  }

  close(): void {
    for (const r of this.all) r.disconnect();
  }

  private acquire(): Promise<Redis> {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.all.size < this.max) {
      const fresh = this.create();
      this.all.add(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
