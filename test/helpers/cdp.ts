/**
 * Debian's Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
 * messages separated by NUL on fds 3 and 4), for tests that must act in a page (click a button)
 * under the page's own Content-Security-Policy. No WebSocket, no extra package.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { CHROMIUM, headlessArgs } from './chromium.js';

export class Browser {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  private buffer = '';

  private constructor(private readonly child: ChildProcess) {
    const out = child.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end;
      while ((end = this.buffer.indexOf('\0')) >= 0) {
        const message = JSON.parse(this.buffer.slice(0, end)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
        this.buffer = this.buffer.slice(end + 1);
        const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
        if (!waiter) continue;
        this.pending.delete(message.id!);
        if (message.error) waiter.reject(new Error(message.error.message));
        else waiter.resolve(message.result ?? {});
      }
    });
  }

  static launch(profileDir: string): Browser {
    const child = spawn(CHROMIUM, [...headlessArgs(profileDir), '--remote-debugging-pipe', 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    return new Browser(child);
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  /** Opens a page and returns a handle to evaluate expressions in it. */
  async open(url: string): Promise<Page> {
    const { targetId } = (await this.send('Target.createTarget', { url })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    return new Page(this, sessionId);
  }

  /**
   * Opens a page at a window size (390 wide: a phone), optionally with the page's own
   * Content-Security-Policy bypassed (to inject axe-core into a page that runs no script).
   */
  async openSized(url: string, { width, height = 900, mobile = false, bypassCSP = false }: { width: number; height?: number; mobile?: boolean; bypassCSP?: boolean }): Promise<Page> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    await this.send('Page.enable', {}, sessionId);
    if (bypassCSP) await this.send('Page.setBypassCSP', { enabled: true }, sessionId);
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile }, sessionId);
    await this.send('Page.navigate', { url }, sessionId);
    return new Page(this, sessionId, targetId);
  }

  /**
   * Ends the browser and waits for it to exit (its profile folder is written to until then: removing
   * it before the exit failed with ENOTEMPTY); SIGKILL after 5 s.
   */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

export class Page {
  constructor(
    private readonly browser: Browser,
    private readonly sessionId: string,
    private readonly targetId?: string,
  ) {}

  /** Evaluates an expression that returns a promise, and its value. */
  async evaluateAsync<T>(expression: string): Promise<T> {
    const r = (await this.browser.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, this.sessionId)) as {
      result: { value: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value;
  }

  /** The whole page as a PNG, at the window's width. */
  async screenshot(): Promise<Buffer> {
    const { width, height } = await this.evaluate<{ width: number; height: number }>('({ width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight })');
    const r = (await this.browser.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width, height, scale: 1 } }, this.sessionId)) as { data: string };
    return Buffer.from(r.data, 'base64');
  }

  async close(): Promise<void> {
    if (this.targetId) await this.browser.send('Target.closeTarget', { targetId: this.targetId });
  }

  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.browser.send('Runtime.evaluate', { expression, returnByValue: true }, this.sessionId)) as { result: { value: T } };
    return r.result.value;
  }

  /** Polls `expression` until it is truthy (or `ms` pass: then throws). */
  async until<T>(expression: string, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const value = await this.evaluate<T>(expression).catch(() => undefined);
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
