/**
 * The rest of a refused request's body, read and thrown away before the answer goes out. An
 * ordinary client (Node's fetch, most HTTP libraries) sends its whole body before it reads the
 * answer: a server that answers a wrong key (401) or an upload over the limit (413) and closes
 * while the body still streams in leaves that client with EPIPE or ECONNRESET instead of the
 * problem. Bounded in bytes and time, so a refused caller cannot make the server read forever:
 * past either bound the answer goes out and the connection closes, as before.
 */
import type { IncomingMessage } from 'node:http';

/**
 * Resolves once the request's body has been read to its end (true), or a bound was reached or the
 * client went away (false). Nothing read is kept.
 * @example
 * await drainBody(request.raw, 64 << 20, 10_000);
 */
export function drainBody(raw: IncomingMessage, maxBytes: number, maxMs: number): Promise<boolean> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve(raw.complete || raw.readableEnded);
  return new Promise((settle) => {
    let seen = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onGone);
      raw.off('close', onGone);
      if (!whole) raw.pause();
      settle(whole);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onGone = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('error', onGone);
    raw.once('close', onGone);
    // The multipart reader the body was piped to stops with the refusal, and would hold it paused
    // (a part nobody reads any more pushes back): the rest goes here alone.
    raw.unpipe();
    raw.resume();
  });
}
