/**
 * Whether an error is Redis not answering (the Upstash client's error, a timeout or abort from its
 * fail-fast signal, a network failure of its fetch) — something to wait out — rather than a bug.
 */
export function isStorageFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (
    err.name === 'UpstashError' ||
    err.name === 'UpstashJSONParseError' ||
    err.name === 'TimeoutError' ||
    err.name === 'AbortError'
  )
    return true;
  // workerd and Node report a failed fetch as a TypeError / Error whose message says so.
  return /fetch failed|network connection|connection refused|ECONNREFUSED|Network connection lost/i.test(err.message);
}
