/**
 * The vector colour rewriter keeps the graphics state's colour spaces across q/Q as renderers do:
 * after `q … rg Q` the fill space is CMYK again, and the `sc` that follows is converted too. Each
 * ICC profile converts its own colours (profiles told apart by their bytes, not their length), and
 * a profile over the file's decode budget refuses the fix instead of being dropped silently.
 */
import { readFileSync } from 'node:fs';
import { PDFDocument, PDFName } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { VectorColourRewriter } from '../../../src/convert/vector.js';
import { BudgetExceededError, DecodeBudget } from '../../../src/pdf/decode-budget.js';
import { cmykColoursToRgb } from '../../../src/raster/colour.js';

const text = (b: Uint8Array) => new TextDecoder().decode(b);

async function rewrite(content: string): Promise<string> {
  const doc = await PDFDocument.create();
  const rewriter = new VectorColourRewriter(doc.context, new DecodeBudget());
  const bytes = new TextEncoder().encode(content);
  rewriter.collect(bytes, undefined);
  await rewriter.convertCollected();
  return text(rewriter.rewrite(bytes, undefined).bytes);
}

describe('VectorColourRewriter and the graphics state stack', () => {
  it('converts an sc after Q restores the CMYK fill space', async () => {
    const out = await rewrite('/DeviceCMYK cs 0 0 0 1 sc q 1 0 0 rg 0 0 10 10 re f Q 1 0 0 0 sc 0 0 10 10 re f');
    // No four-operand sc is left (it would be drawn in DeviceRGB now): every colour is rg.
    expect(out).not.toMatch(/\bsc\b/);
    expect(out.match(/\brg\b/g)).toHaveLength(4);
  });

  it('does not convert an sc after Q restores an RGB fill space', async () => {
    const out = await rewrite('/DeviceRGB cs q /DeviceCMYK cs 0 0 0 1 sc Q 1 0 0 sc 0 0 10 10 re f');
    expect(out).toContain('1 0 0 sc');
  });

  it('keeps its place when q is nested past what it saves', async () => {
    const deep = 'q '.repeat(5000);
    const out = await rewrite(`/DeviceCMYK cs ${deep}${'Q '.repeat(5000)}0 1 0 0 sc 0 0 1 1 re f`);
    expect(out).not.toMatch(/\bsc\b/);
  });
});

describe('VectorColourRewriter and ICC profiles', () => {
  const GS = '/usr/share/color/icc/ghostscript';
  /** Ghostscript's two CMYK profiles at one byte length: the small one padded (its header's size says so). */
  function sameSizeProfiles(): [Uint8Array, Uint8Array] {
    const big = new Uint8Array(readFileSync(`${GS}/default_cmyk.icc`));
    const small = new Uint8Array(big.length);
    small.set(readFileSync(`${GS}/ps_cmyk.icc`));
    new DataView(small.buffer).setUint32(0, small.length);
    return [small, big];
  }

  async function withProfiles(profiles: Uint8Array[], content: string, budget = new DecodeBudget()) {
    const doc = await PDFDocument.create();
    const spaces: Record<string, unknown> = {};
    profiles.forEach((icc, i) => {
      spaces[`CS${i}`] = doc.context.obj([PDFName.of('ICCBased'), doc.context.register(doc.context.flateStream(icc, { N: 4 }))]);
    });
    const resources = doc.context.obj({ ColorSpace: doc.context.obj(spaces as never) });
    const rewriter = new VectorColourRewriter(doc.context, budget);
    const bytes = new TextEncoder().encode(content);
    rewriter.collect(bytes, resources);
    await rewriter.convertCollected();
    return text(rewriter.rewrite(bytes, resources).bytes);
  }

  it('two CMYK profiles of equal size convert one colour each through its own profile', async () => {
    const [a, b] = sameSizeProfiles();
    expect(a.length).toBe(b.length);
    const cmyk = [0.2, 0.5, 0.1, 0.1];
    const out = await withProfiles([a, b], `/CS0 cs ${cmyk.join(' ')} sc 0 0 1 1 re f /CS1 cs ${cmyk.join(' ')} sc 0 0 1 1 re f`);
    // Each `cs` sets its space's initial colour (black) and each `sc` the colour: four rg.
    const rg = [...out.matchAll(/([\d.]+) ([\d.]+) ([\d.]+) rg/g)].map((m) => m.slice(1, 4).map(Number)).filter((_, i) => i % 2 === 1);
    expect(rg).toHaveLength(2);
    const [viaA] = await cmykColoursToRgb([cmyk], a);
    const [viaB] = await cmykColoursToRgb([cmyk], b);
    // The profiles disagree on this colour: sharing one transform would give one of them the other's.
    expect(Math.max(...viaA!.map((v, i) => Math.abs(v - viaB![i]!)))).toBeGreaterThan(0.02);
    rg[0]!.forEach((v, i) => expect(v).toBeCloseTo(viaA![i]!, 3));
    rg[1]!.forEach((v, i) => expect(v).toBeCloseTo(viaB![i]!, 3));
  });

  it('an ICC profile over the file decode budget refuses the fix, as the image path does', async () => {
    const [, big] = sameSizeProfiles();
    await expect(withProfiles([big], '/CS0 cs 0 1 0 0 sc 0 0 1 1 re f', new DecodeBudget({ maxFileDecodedBytes: 64 * 1024 }))).rejects.toBeInstanceOf(BudgetExceededError);
  });
});
