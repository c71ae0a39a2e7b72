/**
 * A loopback HTTP server (127.0.0.1, random port) serving the source-download cases: good and bad
 * PDFs, auth and server errors, redirect chains and loops, a slow drip, bodies that disagree with
 * their Content-Length, a login page, a signed URL and oversized files.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SourceServer {
  base: string;
  hits: Map<string, number>;
  /** Bytes the server wrote of /redirect-endless-body's body before the client hung up. */
  redirectBodyBytes: { sent: number };
  close(): Promise<void>;
}

const file = (name: string) => readFileSync(`test/corpus/files/${name}`);

/** @param extra more paths to serve, each with its content type (images a test made, say) */
export async function startSourceServer(extra: ReadonlyMap<string, { type: string; body: Buffer }> = new Map()): Promise<SourceServer> {
  const good = file('reportlab-tshirt-M-exact.pdf');
  const bad = file('reportlab-tshirt-M-three-pages.pdf');
  const warn = file('qpdf-encrypted-owner-only-aes256.pdf'); // warn: owner password only
  const sleevesFirst = file('qpdf-tshirt-M-sleeves-first.pdf'); // page-order-mismatch, fixable
  const hits = new Map<string, number>();
  const redirectBodyBytes = { sent: 0 };
  const pdf = (res: http.ServerResponse, body: Buffer) => {
    res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': body.length });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    if (req.headers.cookie || req.headers.authorization) {
      res.writeHead(400);
      return res.end('credentials must not be sent');
    }
    const m = /^\/redirect\/(\d+)$/.exec(url.pathname);
    if (m) {
      const n = Number(m[1]);
      res.writeHead(n === 1 ? 302 : 301, { Location: n === 1 ? '/good.pdf' : `/redirect/${n - 1}` });
      return res.end();
    }
    const more = extra.get(url.pathname);
    if (more) {
      res.writeHead(200, { 'Content-Type': more.type, 'Content-Length': more.body.length });
      return res.end(more.body);
    }
    switch (url.pathname) {
      case '/good.pdf':
      case '/signed.pdf':
        return pdf(res, good);
      case '/bad.pdf':
        return pdf(res, bad);
      case '/warn.pdf':
        return pdf(res, warn);
      case '/sleeves-first.pdf':
        return pdf(res, sleevesFirst);
      case '/401':
      case '/403':
      case '/404':
      case '/500': {
        const status = Number(url.pathname.slice(1));
        res.writeHead(status, { 'Content-Type': 'text/plain' });
        return res.end(http.STATUS_CODES[status]);
      }
      case '/to-private': {
        // A public-looking first hop that sends the client on to another loopback address.
        const port = (req.headers.host ?? '').split(':')[1];
        res.writeHead(302, { Location: `http://127.0.0.2:${port}/good.pdf` });
        return res.end();
      }
      case '/loop/a':
        res.writeHead(302, { Location: '/loop/b' });
        return res.end();
      case '/loop/b':
        res.writeHead(302, { Location: '/loop/a' });
        return res.end();
      case '/login':
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end('<!doctype html><html><body><h1>Sign in</h1><form><input name="user"><input type="password" name="pw"></form></body></html>');
      case '/slow': {
        // Drips a byte every 200 ms for a minute: past any sensible total timeout.
        res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': 300 });
        const timer = setInterval(() => res.write('x'), 200);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/overflow': {
        // More bytes than the Content-Length says, written straight to the socket.
        const head = 'HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: 100\r\nConnection: close\r\n\r\n';
        res.socket!.end(Buffer.concat([Buffer.from(head), good.subarray(0, 400)]));
        return;
      }
      case '/short': {
        const head = `HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: ${good.length}\r\nConnection: close\r\n\r\n`;
        res.socket!.end(Buffer.concat([Buffer.from(head), good.subarray(0, 500)]));
        return;
      }
      case '/announced-huge':
        res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': 60_000_000 });
        res.write(good.subarray(0, 100));
        return; // never finishes: the client must stop at the header
      case '/redirect-endless-body': {
        // A redirect whose own body never ends: the client must follow it without reading the body.
        res.writeHead(302, { Location: '/good.pdf', 'Content-Type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 0x42);
        let open = true;
        res.on('close', () => (open = false));
        redirectBodyBytes.sent = 0;
        const pump = () => {
          while (open) {
            redirectBodyBytes.sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
        };
        return pump();
      }
      case '/streamed-huge': {
        res.writeHead(200, { 'Content-Type': 'application/pdf' }); // chunked, no length
        let sent = 0;
        const chunk = Buffer.alloc(64 * 1024, 0x41);
        const pump = () => {
          while (sent < 80_000_000) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (sent = Infinity));
        return pump();
      }
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    redirectBodyBytes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
