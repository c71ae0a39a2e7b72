/**
 * The rest of a refused request's body, read and thrown away before the answer goes out. An
 * ordinary client (Node's fetch, most HTTP libraries) sends its whole body before it reads the
 * answer: a server that answers a wrong key (401) or an upload over the limit (413) and closes
 * while the body still streams in leaves that client with EPIPE or ECONNRESET instead of the
 * problem. Bounded in bytes and time, so a refused caller cannot make the server read forever:
 * past either bound the answer goes out and the connection closes, as before.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

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

/**
 * Closes a refused request's connection only once the client has stopped sending, or `ms` after the
 * answer: a server that closes while the body still streams in makes the kernel answer the next
 * bytes with a reset, which can reach the client before the answer it has not read yet (a 422 lost
 * to EPIPE). So the answer goes out, the writing side is closed, and what still comes is read and
 * dropped until the client ends or the time is up (a lingering close, as web servers do).
 * @example
 * if (!(await drainBody(request.raw, max, ms))) lingerOnClose(request.raw.socket, 2_000);
 */
export function lingerOnClose(socket: Socket, ms: number): void {
  socket.destroySoon = function lingering(this: Socket) {
    if (this.destroyed) return;
    const stop = () => this.destroy();
    this.once('end', stop);
    setTimeout(stop, ms).unref();
    this.on('data', () => undefined);
    this.resume();
    this.end();
  };
}
