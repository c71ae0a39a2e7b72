/**
 * Raw HTTP/1.1 over a socket, for requests no HTTP client would send (malformed lines, huge
 * headers, a method the parser does not know, headers that never finish): what the server writes
 * back, parsed into status, headers and body.
 */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server wrote. */
  raw: string;
  /** Whether the server closed the connection. */
  closed: boolean;
}

/**
 * Sends `request` (written as is; `pieces` are written one after another with `gapMs` between them)
 * and resolves with the first answer, once it is whole or the connection closes.
 */
export function rawRequest(url: string, request: string | Buffer | (string | Buffer)[], { timeoutMs = 30_000, gapMs = 0 } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const pieces = Array.isArray(request) ? request : [request];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      const parsed = parse(data.toString('latin1'));
      if (!parsed && !closed) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (!parsed) return reject(new Error(`no HTTP answer before the connection closed: ${JSON.stringify(data.toString('latin1').slice(0, 300))}`));
      resolve({ ...parsed, raw: data.toString('latin1'), closed });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      if (!settled) reject(new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(data.toString('latin1').slice(0, 300))}`));
    }, timeoutMs);
    socket.on('connect', async () => {
      for (const [i, p] of pieces.entries()) {
        if (i && gapMs) await new Promise((r) => setTimeout(r, gapMs));
        if (socket.destroyed) return;
        socket.write(p);
      }
    });
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

function parse(text: string): Omit<RawAnswer, 'raw' | 'closed'> | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const body = text.slice(end + 4);
  const length = headers['content-length'];
  if (length !== undefined && Buffer.byteLength(body, 'latin1') < Number(length)) return null;
  if (length === undefined && headers['transfer-encoding'] === 'chunked' && !body.endsWith('0\r\n\r\n')) return null;
  return { status, headers, body: length !== undefined ? body.slice(0, Number(length)) : body };
}
