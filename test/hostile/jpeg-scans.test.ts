/**
 * JPEG scans counted before any decoder runs (issue 46): a progressive JPEG's decoder goes over the
 * whole image at every scan, so a file of repeated scans keeps it busy for a minute from 2 MB. The
 * counts are checked against what libjpeg's own scripts write (sharp's progressive JPEG: 10 scans
 * for colour, 6 for grey) and against the restart interval given to libjpeg-turbo's cjpeg; the
 * flood is a real JPEG (sharp) whose last scan is repeated, put on pages by img2pdf. Check keeps the
 * pages from every renderer with a reason, fix refuses the file from the same reading (the colour
 * conversion, the recompression, the fast path and the upscale measure check the count as well
 * before sharp sees the data), and assembly refuses the same JPEG uploaded as a layer.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { assemble } from '../../src/flow/assemble.js';
import { fix } from '../../src/flow/fix.js';
import { preflight } from '../../src/flow/preflight.js';
import { jpegScanReason, jpegScans } from '../../src/pdf/jpeg-scans.js';
import { PreflightPool } from '../../src/pool/pool.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-scans-'));
const pool = new PreflightPool({ maxThreads: 1 });
afterAll(() => pool.destroy());

/** The byte ranges of a JPEG's scans: each SOS segment with its entropy-coded data. */
function scanRanges(jpeg: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  let i = 2;
  while (i + 3 < jpeg.length && jpeg[i + 1] !== 0xd9) {
    const length = (jpeg[i + 2]! << 8) | jpeg[i + 3]!;
    if (jpeg[i + 1] !== 0xda) {
      i += 2 + length;
      continue;
    }
    let j = i + 2 + length;
    for (;;) {
      j = jpeg.indexOf(0xff, j);
      const b = jpeg[j + 1]!;
      if (b === 0 || (b >= 0xd0 && b <= 0xd7)) j += 2;
      else break;
    }
    out.push([i, j]);
    i = j;
  }
  return out;
}

/** `jpeg` with its last scan written `times` more times before the end of image. */
function flooded(jpeg: Uint8Array, times: number): Uint8Array {
  const ranges = scanRanges(jpeg);
  const [start, end] = ranges.at(-1)!;
  const last = jpeg.subarray(start, end);
  return Buffer.concat([jpeg.subarray(0, end), ...Array.from({ length: times }, () => last), jpeg.subarray(end)]);
}

const flat = (channels: 1 | 3) => {
  const image = sharp({ create: { width: 512, height: 512, channels: 3, background: { r: 200, g: 60, b: 30 } } });
  return channels === 1 ? image.toColourspace('b-w') : image;
};

describe('JPEG scans and restart markers, counted from the markers', () => {
  it("counts the scans of libjpeg's progressive scripts and of a baseline file", async () => {
    const colour = new Uint8Array(await flat(3).jpeg({ progressive: true }).toBuffer());
    const grey = new Uint8Array(await flat(1).jpeg({ progressive: true }).toBuffer());
    const baseline = new Uint8Array(await flat(3).jpeg().toBuffer());
    expect(jpegScans(colour).scans).toBe(10);
    expect(jpegScans(grey).scans).toBe(6);
    expect(jpegScans(baseline)).toEqual({ scans: 1, restarts: 0 });
    expect(jpegScanReason(colour, 512 * 512)).toBeNull();
    expect(jpegScans(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toEqual({ scans: 0, restarts: 0 });
  });

  it("counts the restart markers libjpeg-turbo's cjpeg writes at a restart interval of one MCU", () => {
    const ppm = join(dir, 'restarts.ppm');
    execFileSync('/usr/bin/convert', ['-size', '64x64', 'xc:#3070c0', ppm]);
    // 64 × 64 px, 4:2:0: 4 × 4 MCUs of 16 × 16 px, a restart marker between each two.
    const out = execFileSync('cjpeg', ['-sample', '2x2', '-restart', '1B', ppm]);
    expect(jpegScans(new Uint8Array(out))).toEqual({ scans: 1, restarts: 15 });
    // Progressive, the restart interval holds in every scan that codes more than one MCU row.
    const progressive = new Uint8Array(execFileSync('cjpeg', ['-sample', '2x2', '-restart', '1B', '-progressive', ppm]));
    expect(jpegScans(progressive).scans).toBe(10);
    expect(jpegScans(progressive).restarts).toBeGreaterThan(15);
  });

  it('names a flood of scans, and scans × pixels past the limit', async () => {
    const colour = new Uint8Array(await flat(3).jpeg({ progressive: true }).toBuffer());
    const many = flooded(colour, 600);
    expect(jpegScans(many).scans).toBe(610);
    expect(jpegScans(many, 500).scans).toBe(501); // counting stops past the limit
    expect(jpegScanReason(many, 512 * 512)).toMatch(/more than 500 scans/);
    const some = flooded(colour, 90);
    expect(jpegScans(some).scans).toBe(100);
    expect(jpegScanReason(some, 512 * 512)).toBeNull();
    expect(jpegScanReason(some, 40_000_000)).toMatch(/40,000,000 pixels has 100 scans .*more than 3,000,000,000/);
  });
});

describe('a scan flood is never given to a decoder', () => {
  const sku = { sku: 'TANKTOP-M' };
  async function floodedCmykPdf() {
    const cmyk = new Uint8Array(await flat(3).toColourspace('cmyk').jpeg({ progressive: true }).toBuffer());
    const jpg = join(dir, 'flood-cmyk.jpg');
    writeFileSync(jpg, flooded(cmyk, 20_000));
    const pdf = join(dir, 'flood-cmyk.pdf');
    execFileSync('img2pdf', ['--pagesize', '540mmx730mm', jpg, jpg, '-o', pdf]);
    return { jpeg: new Uint8Array(readFileSync(jpg)), pdf: new Uint8Array(readFileSync(pdf)) };
  }

  it('check keeps the page from the renderers, fix leaves the image as it is, assembly refuses it', async () => {
    const { jpeg, pdf } = await floodedCmykPdf();
    const report = await preflight(pdf, sku, { pool });
    const complex = report.findings.filter((f) => f.code === 'pdf-too-complex');
    expect(complex.map((f) => f.message).join(' ')).toMatch(/a JPEG image has more than 500 scans/);
    expect(report.findings.some((f) => f.code === 'page-render-failed')).toBe(false);

    // The fix starts from the same reading: the file is refused whole, nothing written, nothing decoded.
    const fixed = await fix(pdf, sku, { approve: 'all' }, { pool });
    expect(fixed.bytes).toBeNull();
    expect(fixed.refused.map((r) => r.reason).join(' ')).toMatch(/a JPEG image has more than 500 scans/);

    // Probed before the assembly (flow/layer-probe.ts), by counting its scans: refused as unreadable, nothing decoded.
    await expect(assemble(sku, [jpeg, jpeg], {}, { pool: false })).rejects.toThrow(/^The image for layer "front" cannot be decoded as JPEG \(a JPEG image has more than 500 scans/);
  }, 60_000);
});
