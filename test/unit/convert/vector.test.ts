/**
 * The vector colour rewriter keeps the graphics state's colour spaces across q/Q as renderers do:
 * after `q … rg Q` the fill space is CMYK again, and the `sc` that follows is converted too.
 */
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { VectorColourRewriter } from '../../../src/convert/vector.js';
import { DecodeBudget } from '../../../src/pdf/decode-budget.js';

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
