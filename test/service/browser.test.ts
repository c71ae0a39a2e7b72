/**
 * The pages the API serves, in Debian's Chromium (headless): the visual report of a check
 * (GET /v1/checks/{id}/report.html, under the server's Content-Security-Policy) and the docs page
 * (which fetches /openapi.json and renders every operation). The policy is shown to work: a script
 * injected into a stored report does not run, while the report's own script does.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, dumpDomArgs } from '../helpers/chromium.js';
import { PreflightPool } from '../../src/pool/pool.js';
import { startService, type ServiceHandle } from '../../src/service/server.js';
import { CORPUS, form, tempDir } from './harness.js';

let pool: PreflightPool;
let service: ServiceHandle;
const dir = tempDir('pp-browser-');

beforeAll(async () => {
  pool = new PreflightPool({ maxThreads: 2 });
  service = await startService({ port: 0, dataDir: join(dir, 'data'), pool, logLevel: 'silent' });
});

afterAll(async () => {
  await service?.close();
  await pool?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Async: the server answering Chromium runs in this process. */
async function dumpDom(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)(CHROMIUM, dumpDomArgs(join(dir, 'profile'), url), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  return stdout;
}

const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];

describe('report.html served by the API, in Chromium', () => {
  it.each([
    ['reportlab-tshirt-M-blank-back-edge-gap.pdf', 'T-SHIRT-M'],
    ['img2pdf-tanktop-cmyk-jpeg.pdf', 'TANKTOP-M'],
  ])('%s: verdict, every preview decoded, the findings of the JSON report in order', async (file, sku) => {
    const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, file), { sku }) });
    expect(res.status).toBe(200);
    const check = (await res.json()) as { links: { html: string }; report: { verdict: string; pages: unknown[]; findings: { code: string }[] } };
    const page = await fetch(`${service.url}${check.links.html}`);
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    const dom = await dumpDom(`${service.url}${check.links.html}`);
    expect(attr(/<header[^>]*class="banner[^"]*"[^>]*>/.exec(dom)![0], 'data-verdict')).toBe(check.report.verdict);
    const imgs = dom.match(/<img[^>]*class="preview"[^>]*>/g) ?? [];
    expect(imgs).toHaveLength(check.report.pages.length);
    for (const img of imgs) expect(Number(attr(img, 'data-natural-width'))).toBeGreaterThan(0);
    expect(dom).not.toContain('class="broken"');
    const codes = [...dom.matchAll(/data-code="([a-z-]+)"/g)].map((m) => m[1]);
    expect(codes).toEqual(check.report.findings.map((f) => f.code));
  });
});

describe('the Content-Security-Policy at work', () => {
  it("a script slipped into a stored report does not run under the policy; the report's own script does (and without the policy both would)", async () => {
    const res = await fetch(`${service.url}/v1/checks?wait=60`, { method: 'POST', body: form(join(CORPUS, 'reportlab-tshirt-M-blank-back-edge-gap.pdf'), { sku: 'T-SHIRT-M' }) });
    const check = (await res.json()) as { id: string; links: { html: string } };
    // As if escaping had failed somewhere: markup from a file name, stored in the report.
    const file = service.store.reportHtmlFile(check.id);
    appendFileSync(file, '<script>document.body.dataset.injected = "ran";</script><img src=x onerror="document.body.dataset.handler = \'ran\'">');
    const served = await dumpDom(`${service.url}${check.links.html}`);
    expect(served).not.toContain('data-injected');
    expect(served).not.toContain('data-handler');
    // The report's own script ran: every preview marked with its decoded width.
    const widths = [...served.matchAll(/data-natural-width="(\d+)"/g)].map((m) => Number(m[1]));
    expect(widths.length).toBeGreaterThan(0);
    for (const w of widths) expect(w).toBeGreaterThan(0);
    // The same bytes opened without the server's policy: the injected script runs. The test can fail.
    const copy = join(dir, 'unprotected.html');
    copyFileSync(file, copy);
    const bare = await dumpDom(`file://${copy}`);
    expect(bare).toContain('data-injected="ran"');
  });
});

describe('the docs page in Chromium', () => {
  it('renders every operation of /openapi.json', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect((await fetch(`${service.url}/docs`)).headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'/);
    const dom = await dumpDom(`${service.url}/docs`);
    expect(/<body[^>]*data-operations="(\d+)"/.exec(dom)?.[1]).toBe(String(operations.length));
    const shown = [...dom.matchAll(/<section class="op" data-method="([A-Z]+)" data-path="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(shown.sort()).toEqual(operations.sort());
  });
});
