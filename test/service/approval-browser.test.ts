/**
 * The approval page in Debian's Chromium, served with its Content-Security-Policy: the customer
 * sees each layer before and after (every preview decoded) and the changes in their language, and
 * the approve button — a plain form, no script — posts under `form-action 'self'`, after which the
 * check is approved and the page shows the outcome. A click is made through the DevTools protocol.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { Browser } from '../helpers/cdp.js';
import { CORPUS, form, tempDir } from './harness.js';

let pool: PreflightPool;
let service: ServiceHandle;
let browser: Browser;
const dir = tempDir('pp-approval-browser-');

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
  browser = Browser.launch(join(dir, 'profile'));
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('the approval page in Chromium', () => {
  it('shows before and after in Spanish, and its approve button approves the fix under the page policy', async () => {
    const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tanktop-cmyk-spot.pdf'), { sku: 'TANKTOP-M', fix: 'approve', locale: 'es' }) });
    const check = (await res.json()) as { id: string; status: string; fixed: { url: string; sha256: string }; links: { approval: string }; report: { pages: unknown[] } };
    expect(check.status).toBe('needs-approval');
    const page = await browser.open(`${service.url}${check.links.approval}`);
    await page.until("document.readyState === 'complete' && document.querySelector('button.approve') !== null");
    expect(await page.evaluate('document.documentElement.lang')).toBe('es');
    const images = await page.until<{ before: number[]; after: number[] }>(
      "[...document.images].every((i) => i.complete) && { before: [...document.querySelectorAll('figure.before img')].map((i) => i.naturalWidth), after: [...document.querySelectorAll('figure.after img')].map((i) => i.naturalWidth) }",
    );
    expect(images.before).toHaveLength(check.report.pages.length);
    expect(images.after).toHaveLength(check.report.pages.length);
    for (const w of [...images.before, ...images.after]) expect(w).toBeGreaterThan(0);
    expect(await page.evaluate('document.body.innerText')).toContain('Hemos convertido los colores');

    await page.evaluate("document.querySelector('button.approve').click()");
    const outcome = await page.until<string>("document.querySelector('.outcome')?.textContent");
    expect(outcome).toContain('Ha aprobado los cambios');
    const view = (await (await fetch(`${service.url}/v1/checks/${check.id}`)).json()) as { status: string; approval: { state: string } };
    expect(view).toMatchObject({ status: 'done', approval: { state: 'approved' } });
    const file = new Uint8Array(await (await fetch(`${service.url}${check.fixed.url}`)).arrayBuffer());
    expect(createHash('sha256').update(file).digest('hex')).toBe(check.fixed.sha256);
  });
});
