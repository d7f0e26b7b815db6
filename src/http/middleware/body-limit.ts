import { bodyLimit } from 'hono/body-limit';
import type { MiddlewareHandler } from 'hono';
import { jsonError } from '../errors.js';

/** Hono's body limit (declared length and streamed bytes), answered as our JSON 413. */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => jsonError(c, 413, `body is larger than the limit of ${maxBytes} bytes`),
  });
}
