/**
 * What a patch mesh costs a renderer (pdf/mesh-cost.ts): the pieces it is cut into by each patch's
 * share of the mesh, not 64 per patch — PdfPig's ColorIssue.pdf (an Illustrator jersey template,
 * 7,856 patches) was refused pdf-too-complex for "about 502,784 vertices" though Ghostscript draws it
 * in 0.6 s. pikepdf pages as the oracle's input, MuPDF drawing them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';
import { patchMeshPieces } from '../../../src/pdf/mesh-cost.js';

const dir = mkdtempSync(join(tmpdir(), 'mesh-'));

/** Coons patch data (flag 0, 12 points of 16 bits, 4 RGB colours) for a grid of n × n equal patches. */
function grid(n: number): Uint8Array {
  const out: number[] = [];
  const u16 = (v: number) => out.push(v >> 8, v & 255);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const [x0, x1, y0, y1] = [Math.floor((i * 65535) / n), Math.floor(((i + 1) * 65535) / n), Math.floor((j * 65535) / n), Math.floor(((j + 1) * 65535) / n)];
      out.push(0);
      for (let p = 0; p < 12; p++) {
        u16(p < 4 ? x0 : p < 7 ? x0 + ((x1 - x0) * (p - 3)) / 3 : p < 10 ? x1 : x1 - ((x1 - x0) * (p - 9)) / 3);
        u16(p < 4 ? y0 + ((y1 - y0) * p) / 3 : p < 7 ? y1 : p < 10 ? y1 - ((y1 - y0) * (p - 6)) / 3 : y0);
      }
      for (let c = 0; c < 12; c++) out.push(c * 20);
    }
  }
  return Uint8Array.from(out.map((v) => Math.floor(v)));
}

const layout = { type: 6 as const, bitsPerFlag: 8, bitsPerCoordinate: 16, bitsPerComponent: 8, colourComponents: 3 };

describe('the pieces of a patch mesh', () => {
  it('many small patches are cut 3 × 3 each; a few large ones finely (20 across the mesh)', () => {
    expect(patchMeshPieces(grid(100), layout)).toEqual({ patches: 10_000, pieces: 90_000 });
    expect(patchMeshPieces(grid(2), layout)).toEqual({ patches: 4, pieces: 441 }); // halves of 32,767 and 32,768 units: 10 and 11 pieces across
    expect(patchMeshPieces(grid(5), layout)).toEqual({ patches: 25, pieces: 25 * 16 });
  });

  it('a cut-short record and unknown flags end the count; bad layouts count nothing', () => {
    const data = grid(3);
    expect(patchMeshPieces(data.subarray(0, data.length - 5), layout).patches).toBe(8);
    expect(patchMeshPieces(Uint8Array.from([7, ...data]), layout).patches).toBe(0);
    expect(patchMeshPieces(data, { ...layout, bitsPerFlag: 3 })).toEqual({ patches: 0, pieces: 0 });
  });

  it('a page of 10,000 small patches (640,000 "vertices" by the old count) is drawn, as MuPDF draws it', async () => {
    const pdf = join(dir, 'mesh-100.pdf');
    execFileSync('/usr/bin/python3', [join(__dirname, 'producers', 'patch_mesh.py'), pdf, '100']);
    const report = await preflight(pdf, { sku: 'T-SHIRT-M' });
    expect(report.findings.map((f) => f.code)).not.toContain('pdf-too-complex');
    expect(report.pages[0]!.raster?.inkCoverage).toBeGreaterThan(0.95);
    const mupdf = execFileSync('mutool', ['draw', '-q', '-F', 'pam', '-w', '60', '-o', '-', pdf, '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    expect(mupdf.length).toBeGreaterThan(1000);
  });
});
