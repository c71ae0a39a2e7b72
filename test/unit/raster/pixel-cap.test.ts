/**
 * Images beyond the pixel cap are never decoded whole: a page drawing an image that claims
 * 100,000 × 100,000 px (its stream is a few bytes) is not handed to a renderer, answers quickly,
 * and says why (pdf-too-complex).
 */
import { PDFDocument, PDFName, PDFRawStream, pushGraphicsState, popGraphicsState, concatTransformationMatrix, drawObject } from 'pdf-lib';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../../src/flow/preflight.js';

async function claimingImage(width: number, height: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < 2; i++) {
    const page = pdf.addPage([540 * 2.8346, 740 * 2.8346]);
    const dict = pdf.context.obj({ Type: 'XObject', Subtype: 'Image', Width: width, Height: height, BitsPerComponent: 8, ColorSpace: 'DeviceRGB', Filter: 'FlateDecode' });
    const ref = pdf.context.register(PDFRawStream.of(dict, deflateSync(Buffer.alloc(1024))));
    page.node.setXObject(PDFName.of('Im'), ref);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(page.getWidth(), 0, 0, page.getHeight(), 0, 0), drawObject('Im'), popGraphicsState());
  }
  return pdf.save();
}

describe('the pixel cap', () => {
  it('refuses to render a page whose image claims 100,000 × 100,000 px, quickly and with a reason', async () => {
    const started = performance.now();
    const report = await preflight(await claimingImage(100_000, 100_000), { sku: 'TANKTOP-M' });
    expect(performance.now() - started).toBeLessThan(20_000);
    const codes = report.findings.map((f) => f.code);
    expect(codes).toContain('image-too-large');
    // Decided before any worker runs: never rendered, a pdf-too-complex finding per page.
    const refused = report.findings.filter((f) => f.code === 'pdf-too-complex');
    expect(refused.map((f) => f.page)).toEqual([1, 2]);
    expect(refused[0]!.message).toMatch(/draws images of 10,000,000,000 pixels in all.*not rendered, to stay within the memory limit/);
    expect(report.pages.every((p) => p.raster === null)).toBe(true);
  });
});
