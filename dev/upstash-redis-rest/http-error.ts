/** An error that already knows its HTTP status; everything else becomes 500. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** ioredis rejects with a ReplyError for every error reply Redis sends. */
export function isRedisError(err: unknown): err is Error {
  return err instanceof Error && err.name === 'ReplyError';
}
