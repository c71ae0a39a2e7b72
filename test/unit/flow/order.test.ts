import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrderPayload, OrderPayloadError } from '../../../src/flow/order.js';
import type { Report } from '../../../src/report/schema.js';
import { startSourceServer, type SourceServer } from '../../helpers/source-server.js';
import { validDraft } from '../../helpers/order.js';
import { expectPublished } from '../../helpers/contracts.js';

let server: SourceServer;
beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(() => server.close());

const network = { allowHosts: ['127.0.0.1'], totalTimeoutMs: 3_000 };
const preflight = { raster: false };

describe('buildOrderPayload', () => {
  it('returns the payload when every source passes, with defaults filled and nothing undefined', async () => {
    const { payload, reports } = await buildOrderPayload(validDraft([`${server.base}/good.pdf`]), { network, preflight });
    expect(payload.rows[0]!.sources).toEqual([{ type: 'file', url: `${server.base}/good.pdf` }]);
    expect(payload.rows[1]).toEqual({ sku: 'DUVET-COVER-200X200', quantity: 1, client_barcode: 'LINE-0002', cart_item_key: 'cart-8f3a' });
    expect(JSON.stringify(payload)).not.toContain('undefined');
    expectPublished('order', JSON.stringify(payload));
    for (const r of reports) expectPublished('report', JSON.stringify(r));
    expect(reports.map((r) => r.verdict)).toEqual(['pass']);
  });

  it('refuses the whole order when one source fails, naming the row and source and why', async () => {
    const error = await buildOrderPayload(validDraft([`${server.base}/good.pdf`, `${server.base}/bad.pdf`, `${server.base}/404`]), { network, preflight }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderPayloadError);
    const issues = (error as OrderPayloadError).issues;
    expect(issues.map((i) => i.path)).toEqual(['rows[0].sources[1]', 'rows[0].sources[2]']);
    expect(issues[0]!.message).toMatch(/bad\.pdf fails its preflight for t-shirt M: page-count-mismatch/);
    expect(issues[1]!.message).toMatch(/source-unreachable.*404/);
    expect(issues[0]!.report!.verdict).toBe('fail');
  });

  it('accepts warn by default and refuses it in strict mode', async () => {
    const draft = validDraft([`${server.base}/warn.pdf`]);
    await expect(buildOrderPayload(draft, { network, preflight })).resolves.toBeTruthy();
    const error = (await buildOrderPayload(draft, { network, preflight, strict: true }).catch((e) => e)) as OrderPayloadError;
    expect(error.issues[0]!.message).toMatch(/has warnings, and strict mode accepts only pass/);
  });

  it('downloads each URL once however many rows name it', async () => {
    const url = `${server.base}/redirect/1`;
    const before = server.hits.get('/redirect/1') ?? 0;
    const d = validDraft([url, url]);
    d.rows.push({ sku: 'T-SHIRT-M', quantity: 1, sources: [{ url }] });
    await buildOrderPayload(d, { network, preflight });
    expect(server.hits.get('/redirect/1')! - before).toBe(1);
  });

  it('uses preflight results the caller has, matched by URL and sha256, without downloading', async () => {
    const url = `${server.base}/good.pdf`;
    const { reports } = await buildOrderPayload(validDraft([url]), { network, preflight });
    const before = server.hits.get('/good.pdf')!;
    await buildOrderPayload(validDraft([url]), { network, preflight, preflights: [{ url, sha256: reports[0]!.file.sha256, report: reports[0]! }] });
    expect(server.hits.get('/good.pdf')).toBe(before);
    const error = (await buildOrderPayload(validDraft([url]), {
      network,
      preflight,
      preflights: [{ url, sha256: '0'.repeat(64), report: reports[0]! }],
    }).catch((e) => e)) as OrderPayloadError;
    expect(error.issues[0]!.message).toMatch(/judged a file with sha256 .* not 0000/);
  });

  it('refuses a given report made for another product', async () => {
    const url = `${server.base}/good.pdf`;
    const { reports } = await buildOrderPayload(validDraft([url]), { network, preflight });
    const other = { ...reports[0]!, product: 'hoodie', variant: 'M' };
    const error = (await buildOrderPayload(validDraft([url]), { network, preflight, preflights: [other] }).catch((e) => e)) as OrderPayloadError;
    expect(error.issues[0]!.message).toMatch(/given report is for hoodie M, but the row is for t-shirt M/);
  });

  it('needs a SKU for rows with sources: variant_id through variantSkus', async () => {
    const d = validDraft([`${server.base}/good.pdf`]);
    d.rows[0] = { variant_id: 77, quantity: 1, sources: [{ url: `${server.base}/good.pdf` }] };
    const error = (await buildOrderPayload(d, { network, preflight }).catch((e) => e)) as OrderPayloadError;
    expect(error.issues.map((i) => i.path)).toEqual(['rows[0].variant_id']);
    await expect(buildOrderPayload(d, { network, preflight, variantSkus: { 77: 'T-SHIRT-M' } })).resolves.toBeTruthy();
  });

  it('refuses an unknown SKU on a row with sources, and field errors before any download', async () => {
    const d = validDraft([`${server.base}/good.pdf`]);
    d.rows[0]!.sku = 'PILLOW-40X40';
    const error = (await buildOrderPayload(d, { network, preflight }).catch((e) => e)) as OrderPayloadError;
    expect(error.issues[0]).toMatchObject({ path: 'rows[0].sku' });
    const before = server.hits.get('/slow') ?? 0;
    const bad = validDraft([`${server.base}/slow`]);
    bad.customer.email = 'nope';
    const fieldError = (await buildOrderPayload(bad, { network, preflight }).catch((e) => e)) as OrderPayloadError;
    expect(fieldError.issues.map((i) => i.path)).toEqual(['customer.email']);
    expect(server.hits.get('/slow') ?? 0).toBe(before);
  });
});

describe('buildOrderPayload (property)', () => {
  const fakeReport = (url: string, verdict: Report['verdict']): Report =>
    ({
      schemaVersion: 1,
      tool: { name: 'print-preflight', version: '0' },
      file: { path: url, bytes: 1, sha256: 'a'.repeat(64) },
      product: 't-shirt',
      variant: 'M',
      sku: 'T-SHIRT-M',
      profileVersion: '1.0.0',
      profileDigest: 'b'.repeat(64),
      limits: { bleedMm: 10, toleranceMm: 2, minPpi: 100, minPpiError: 50, maxImagePixels: 15000, maxFileBytes: 5e7, safeMarginMm: null },
      verdict,
      counts: { error: 0, warning: 0, info: 0 },
      rules: {},
      pdf: { version: '1.7', pageCount: 4, encrypted: false, activeContent: [] },
      pages: [],
      findings: [],
    }) as Report;

  it('never returns a payload that references a source whose report did not pass', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => `https://files.example.com/${i}.pdf`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Report['verdict']>('pass', 'warn', 'fail'), { minLength: 6, maxLength: 6 }),
        fc.array(fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (verdicts, rowSources, strict) => {
          const draft = validDraft();
          draft.rows = rowSources.map((s, i) => ({ sku: 'T-SHIRT-M', quantity: 1, client_barcode: `L${i}`, sources: s.map((n) => ({ url: urls[n]! })) }));
          const preflights = urls.map((u, i) => fakeReport(u, verdicts[i]!));
          const ok = (v: Report['verdict']) => v === 'pass' || (v === 'warn' && !strict);
          try {
            const { payload } = await buildOrderPayload(draft, { preflights, strict });
            for (const row of payload.rows) for (const s of row.sources ?? []) expect(ok(verdicts[urls.indexOf(s.url)]!)).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(OrderPayloadError);
            const used = new Set(rowSources.flat());
            expect([...used].some((n) => !ok(verdicts[n]!))).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
