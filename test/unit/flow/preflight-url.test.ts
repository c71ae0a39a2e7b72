import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedReason } from '../../../src/source/address.js';
import { preflightUrl } from '../../../src/flow/preflight-url.js';
import { checkAndFixUrl } from '../../../src/flow/check-and-fix.js';
import { signedUrl } from '../../../src/source/signed-url.js';
import { startSourceServer, type SourceServer } from '../../helpers/source-server.js';

let server: SourceServer;
beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(() => server.close());

const allow = { allowHosts: ['127.0.0.1'], totalTimeoutMs: 3_000, connectTimeoutMs: 2_000 };
const check = (path: string, extra: object = {}) => preflightUrl(`${server.base}${path}`, { sku: 'T-SHIRT-M' }, { network: allow, raster: false, ...extra });
const codes = (r: { findings: { code: string }[] }) => r.findings.map((f) => f.code);

describe('preflight of a source URL over the network', () => {
  it('downloads and preflights a good file', async () => {
    const r = await check('/good.pdf');
    expect(r.verdict).toBe('pass');
    expect(r.file.path).toBe(`${server.base}/good.pdf`);
    expect(r.source).toMatchObject({ status: 200, contentType: 'application/pdf', redirects: [], signed: null });
    expect(r.pages).toHaveLength(4);
  });

  it('judges a bad file like a local one', async () => {
    expect(codes(await check('/bad.pdf'))).toEqual(['page-count-mismatch']);
  });

  it.each([
    ['/401', 'source-requires-auth', /401 Unauthorized/],
    ['/403', 'source-requires-auth', /403 Forbidden/],
    ['/404', 'source-unreachable', /404 Not Found: the file is not there/],
    ['/500', 'source-unreachable', /500 Internal Server Error: the server failed/],
    ['/loop/a', 'source-unreachable', /redirects in a loop/],
    ['/slow', 'source-unreachable', /took longer than 3 s/],
    ['/overflow', 'source-unreachable', /more data than its Content-Length \(100 bytes\)/],
    ['/short', 'source-unreachable', /closed after 500 of \d+ bytes/],
  ])('%s → %s', async (path, code, message) => {
    const r = await check(path);
    expect(r.verdict).toBe('fail');
    expect(codes(r)).toEqual([code]);
    expect(r.findings[0]!.message).toMatch(message);
  });

  it('follows a redirect chain and reports it', async () => {
    const r = await check('/redirect/3');
    expect(r.verdict).toBe('pass');
    expect(codes(r)).toEqual(['source-redirected']);
    expect(r.source!.redirects.map((x) => x.status)).toEqual([301, 301, 302]);
    expect(r.source!.finalUrl).toBe(`${server.base}/good.pdf`);
  });

  it('follows a redirect without reading its body, even one that never ends', async () => {
    const r = await check('/redirect-endless-body');
    expect(r.verdict).toBe('pass');
    expect(r.source!.redirects.map((x) => x.status)).toEqual([302]);
    // What the server could push into the socket buffers before the client hung up, no more.
    expect(server.redirectBodyBytes.sent).toBeLessThan(32 * 1024 * 1024);
  });

  it('stops a redirect chain longer than the limit', async () => {
    const r = await preflightUrl(`${server.base}/redirect/4`, { sku: 'T-SHIRT-M' }, { network: { ...allow, maxRedirects: 2 }, raster: false });
    expect(r.findings.find((f) => f.code === 'source-unreachable')!.message).toMatch(/redirects more than 2 times/);
  });

  it('recognises a login page served with 200', async () => {
    const r = await check('/login');
    expect(codes(r).sort()).toEqual(['file-not-pdf', 'source-requires-auth']);
  });

  it('warns that a signed URL expires, and says when', async () => {
    const r = await check(
      '/signed.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a%2F20261122%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261122T100000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=abc123',
    );
    expect(r.verdict).toBe('warn');
    expect(codes(r)).toEqual(['source-url-expires']);
    expect(r.findings[0]!.message).toContain('expires 2026-11-22 11:00:00 UTC');
  });

  it('refuses a file over the size limit from its Content-Length, and while streaming', async () => {
    const announced = await check('/announced-huge');
    expect(codes(announced)).toEqual(['file-too-large']);
    expect(announced.findings[0]!.message).toMatch(/announces 60000000 bytes.*not downloaded/);
    const streamed = await check('/streamed-huge', { limits: { maxFileBytes: 2_000_000 } });
    expect(codes(streamed)).toEqual(['file-too-large']);
    expect(streamed.findings[0]!.message).toMatch(/passed the limit of 2000000 bytes and was stopped/);
  });

  it('refuses loopback addresses unless allowed (SSRF guard), also behind a name', async () => {
    const literal = await preflightUrl(`${server.base}/good.pdf`, { sku: 'T-SHIRT-M' }, { raster: false });
    expect(codes(literal)).toEqual(['source-address-blocked']);
    const named = await preflightUrl(`${server.base.replace('127.0.0.1', 'localhost')}/good.pdf`, { sku: 'T-SHIRT-M' }, { raster: false });
    expect(codes(named)).toEqual(['source-address-blocked']);
    expect(named.findings[0]!.message).toMatch(/localhost resolves to .*loopback/);
  });

  it('checks every redirect: an allowed host cannot send the download on to a blocked address', async () => {
    // 127.0.0.1 is allowed; the redirect target 127.0.0.2 is not.
    const r = await check('/to-private');
    expect(codes(r)).toEqual(['source-address-blocked']);
    expect(r.findings[0]!.message).toMatch(/127\.0\.0\.2 is a loopback address/);
    expect(r.source!.redirects).toHaveLength(1);
  });

  it.each([
    ['ftp://example.com/a.pdf', 'source-unreachable', /uses ftp/],
    ['file:///etc/passwd', 'source-unreachable', /uses file/],
    ['http://user:secret@127.0.0.1/a.pdf', 'source-requires-auth', /user name or password/],
    ['not a url', 'source-unreachable', /not a valid URL/],
  ])('refuses %s', async (url, code, message) => {
    const r = await preflightUrl(url, { sku: 'T-SHIRT-M' }, { network: allow, raster: false });
    expect(codes(r)).toEqual([code]);
    expect(r.findings[0]!.message).toMatch(message);
  });

  it('reports a refused connection', async () => {
    const r = await preflightUrl('http://127.0.0.1:1/a.pdf', { sku: 'T-SHIRT-M' }, { network: allow, raster: false });
    expect(r.findings[0]!.message).toMatch(/connection failed \(ECONNREFUSED\)/);
  });

  it('sends no cookie or credentials', () => {
    // The server answers 400 to any Cookie or Authorization header; every good download above passed.
    expect(server.hits.get('/good.pdf')).toBeGreaterThan(0);
  });
});

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata lives here)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique local (private)'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback (IPv4-translated of 127.0.0.1)'],
    ['64:ff9b::10.0.0.1', 'private (NAT64 of 10.0.0.1)'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata lives here) (NAT64 of 169.254.169.254)'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', 'loopback (6to4 of 127.0.0.1)'],
    ['2002:c0a8:101:5::1', 'private (6to4 of 192.168.1.1)'],
    // Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (0x80ff:fffe).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback (Teredo of 127.0.0.1)'],
    ['2001:0:a00:1:8000:63bf:3fff:fdd2', 'private (Teredo of 10.0.0.1)'],
    ['2a00:1450:4001::5efe:a00:1', 'private (ISATAP of 10.0.0.1)'],
    ['100::1', 'discard-only'],
    ['3fff::1', 'documentation'],
    ['64:ff9b::808:808', null],
    ['2002:808:808::1', null],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', null],
    ['8.8.8.8', null],
    ['172.32.0.1', null],
    ['2a00:1450:4001::200e', null],
  ])('%s is %s', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });
});

describe('signed URLs', () => {
  it.each([
    ['https://b.s3.amazonaws.com/a.pdf?X-Amz-Date=20260101T000000Z&X-Amz-Expires=86400&X-Amz-Signature=x&X-Amz-Credential=y', 'Amazon S3', '2026-01-02T00:00:00.000Z'],
    ['https://b.s3.amazonaws.com/a.pdf?AWSAccessKeyId=A&Expires=1767225600&Signature=s', 'Amazon S3', '2026-01-01T00:00:00.000Z'],
    [
      'https://storage.googleapis.com/b/a.pdf?X-Goog-Algorithm=x&X-Goog-Credential=c&X-Goog-Date=20260101T000000Z&X-Goog-Expires=600&X-Goog-Signature=s',
      'Google Cloud Storage',
      '2026-01-01T00:10:00.000Z',
    ],
    ['https://acc.blob.core.windows.net/c/a.pdf?sv=2022-11-02&se=2026-01-01T00%3A00%3A00Z&sr=b&sp=r&sig=abc', 'Azure Storage', '2026-01-01T00:00:00.000Z'],
    ['https://d1.cloudfront.net/a.pdf?Expires=1767225600&Signature=s&Key-Pair-Id=K', 'Amazon CloudFront', '2026-01-01T00:00:00.000Z'],
  ])('%s', (url, provider, expires) => {
    const s = signedUrl(new URL(url))!;
    expect(s.provider).toBe(provider);
    expect(s.expires!.toISOString()).toBe(expires);
  });

  it('leaves ordinary URLs alone', () => {
    expect(signedUrl(new URL('https://cdn.example.com/a.pdf?version=3&sig_name=x'))).toBeNull();
  });
});

describe('check and fix of a source URL', () => {
  const fixUrl = (path: string) => checkAndFixUrl(`${server.base}${path}`, { sku: 'T-SHIRT-M' }, { fix: 'approve', network: allow, raster: false });

  it('downloads, fixes the page order (approved by the policy) and checks again; both reports say where the file came from', async () => {
    const out = await fixUrl('/sleeves-first.pdf');
    expect(codes(out.before)).toContain('page-order-mismatch');
    expect(out.status).toBe('done');
    expect(out.fixed?.changes.map((c) => [c.code, c.needsApproval])).toEqual([['page-order-mismatch', false]]);
    expect(out.report.verdict).toBe('pass');
    expect(out.report.file.sha256).toBe(out.fixed!.sha256);
    for (const r of [out.report, out.before]) expect(r.source).toMatchObject({ url: `${server.base}/sleeves-first.pdf`, status: 200 });
  });

  it('a download that gives no file ends done with the reason and nothing fixed', async () => {
    const out = await fixUrl('/404');
    expect(out).toMatchObject({ status: 'done', fixed: null });
    expect(codes(out.report)).toEqual(['source-unreachable']);
  });

  it('a file with nothing the policy fixes is judged as it is', async () => {
    const out = await fixUrl('/bad.pdf');
    expect(out.fixed).toBeNull();
    expect(codes(out.report)).toEqual(['page-count-mismatch']);
  });
});
