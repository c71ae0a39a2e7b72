/**
 * A loopback file server whose answers wait for the test: GET /gate/NAME.pdf is held until
 * `release(NAME)` (or `releaseAll()`), then gets a real PDF (reportlab-made, from the corpus). A
 * check of such a URL is running, deterministically, for as long as the test wants — the way to
 * show how many of a tenant's checks run at once without relying on how fast a machine is.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedSource {
  base: string;
  /** `${base}/gate/${name}.pdf` */
  url(name: string): string;
  /** Names whose request arrived and is held now. */
  held(): string[];
  /** The most requests held at once so far. */
  mostHeld(): number;
  /** Every name that arrived, in order. */
  arrived: string[];
  /** Resolves once `name`'s request arrived. */
  waitFor(name: string, timeoutMs?: number): Promise<void>;
  release(name: string): void;
  releaseAll(): void;
  /** Answers at once from now on (held requests included). */
  open(): void;
  close(): Promise<void>;
}

export async function startGatedSource(file = 'test/corpus/files/reportlab-tshirt-M-exact.pdf'): Promise<GatedSource> {
  const pdf = readFileSync(file);
  const held = new Map<string, http.ServerResponse[]>();
  const arrived: string[] = [];
  const waiters = new Map<string, (() => void)[]>();
  let most = 0;
  let opened = false;
  const answer = (res: http.ServerResponse) => {
    if (res.destroyed) return;
    res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': pdf.length });
    res.end(pdf);
  };
  const count = () => [...held.values()].reduce((n, list) => n + list.length, 0);
  const server = http.createServer((req, res) => {
    const m = /^\/gate\/([\w.-]+)\.pdf$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      return res.end();
    }
    const name = m[1]!;
    arrived.push(name);
    for (const w of waiters.get(name) ?? []) w();
    waiters.delete(name);
    if (opened) return answer(res);
    const list = held.get(name) ?? [];
    list.push(res);
    held.set(name, list);
    res.on('close', () => {
      const l = held.get(name);
      if (!l) return;
      const i = l.indexOf(res);
      if (i >= 0) l.splice(i, 1);
      if (!l.length) held.delete(name);
    });
    most = Math.max(most, count());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const release = (name: string) => {
    const list = held.get(name) ?? [];
    held.delete(name);
    for (const res of list) answer(res);
  };
  return {
    base,
    url: (name) => `${base}/gate/${name}.pdf`,
    held: () => [...held.keys()].sort(),
    mostHeld: () => most,
    arrived,
    waitFor(name, timeoutMs = 60_000) {
      if (arrived.includes(name)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no request for ${name} within ${timeoutMs} ms (arrived: ${arrived.join(', ')})`)), timeoutMs);
        waiters.set(name, [...(waiters.get(name) ?? []), () => (clearTimeout(timer), resolve())]);
      });
    },
    release,
    releaseAll: () => {
      for (const name of [...held.keys()]) release(name);
    },
    open: () => {
      opened = true;
      for (const name of [...held.keys()]) release(name);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
