/**
 * A real Redis for the fleet tests: Debian's `redis-server` on a free loopback port, its files in a
 * temporary folder, no persistence unless asked for. `restart()` stops it (saving its data first,
 * as a planned restart would) and starts it again on the same port, so that clients connected to it
 * see a real disconnection and reconnect.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  port: number;
  url: string;
  dir: string;
  /** Sends one command (inline protocol) and resolves to the raw reply. */
  command(...args: string[]): Promise<string>;
  /** Stops the server (saving its data when `save`), then starts it again on the same port. */
  restart(opts?: { save?: boolean; downMs?: number }): Promise<void>;
  /** Stops the server, saving its data when `save` (a planned restart); `up()` starts it again. */
  down(opts?: { save?: boolean }): Promise<void>;
  /** Starts the server again on the same port and folder (loading the data saved by `down`). */
  up(): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** One RESP request/reply over a fresh socket (enough for PING, SHUTDOWN, DBSIZE, KEYS). */
function rawCommand(port: number, args: string[], timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis ${args[0]}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`));
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
      if (data.endsWith('\r\n')) {
        clearTimeout(timer);
        socket.end();
        resolve(data);
      }
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`redis test harness: ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a private redis-server; call `stop()` in afterAll. */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pp-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let log = '';

  const launch = async () => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--dbfilename', 'dump.rdb'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (c) => (log = (log + c).slice(-4000)));
    proc.stderr!.on('data', (c) => (log = (log + c).slice(-4000)));
    child = proc;
    let exited = false;
    proc.once('exit', () => (exited = true));
    await waitFor(
      async () => {
        if (exited) throw new Error(`redis-server exited: ${log}`);
        return (await rawCommand(port, ['PING'], 500)).startsWith('+PONG');
      },
      15_000,
      `redis-server on port ${port} did not answer PING (${log.slice(-500)})`,
    );
  };

  const halt = async (save: boolean) => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    // SHUTDOWN SAVE writes dump.rdb even with `--save ""`; NOSAVE is a plain crash-like stop.
    await rawCommand(port, ['SHUTDOWN', save ? 'SAVE' : 'NOSAVE']).catch(() => proc.kill('SIGKILL'));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    child = null;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    dir,
    command: (...args) => rawCommand(port, args),
    async restart({ save = true, downMs = 500 } = {}) {
      await halt(save);
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    down: ({ save = true } = {}) => halt(save),
    up: () => launch(),
    async stop() {
      await halt(false);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
