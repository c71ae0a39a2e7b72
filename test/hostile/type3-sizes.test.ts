/**
 * Type 3 glyphs replayed by size (issue 46): PDFium draws a Type 3 glyph once per size (its cache is
 * keyed by the code and the text matrix) and copies the bitmap after, so one glyph of 1,500 points
 * shown at 20,000 sizes is 20,000 runs of its procedure — 33 s of a renderer where the render-cost
 * screen allowed 10 s a page, when the screen counted each glyph procedure once. The font is a
 * PostScript user-defined font that Ghostscript's pdfwrite writes as a Type 3 font, made at test time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { preflight } from '../../src/flow/preflight.js';
import { PreflightPool } from '../../src/pool/pool.js';

const dir = mkdtempSync(join(tmpdir(), 'pp-type3-'));
const pool = new PreflightPool({ maxThreads: 1 });
afterAll(() => pool.destroy());

/** A page showing glyph A of a Type 3 font (a filled path of 1,500 points) `count` times, at `count` sizes (or one). */
function type3Page(count: number, sizes: 'many' | 'one'): Uint8Array {
  const scale = sizes === 'many' ? '1 i 0.01 mul add' : '1';
  const ps = `%!PS
/T3 8 dict dup begin
  /FontType 3 def
  /FontMatrix [0.001 0 0 0.001 0 0] def
  /FontBBox [0 0 1000 1000] def
  /Encoding 256 array def
  0 1 255 { Encoding exch /.notdef put } for
  Encoding 65 /A put
  /CharProcs 2 dict dup begin
    /.notdef { } def
    /A { 0 0 moveto 0 1 1500 { dup 7 mul 1000 mod exch 13 mul 1000 mod lineto } for closepath fill } def
  end def
  /BuildGlyph { 1000 0 0 0 1000 1000 setcachedevice exch /CharProcs get exch 2 copy known not { pop /.notdef } if get exec } def
  /BuildChar { 1 index /Encoding get exch get 1 index /BuildGlyph get exec } def
end definefont pop
0 1 ${count - 1} { /i exch def /T3 findfont ${scale} scalefont setfont 50 50 moveto (A) show } for
showpage
`;
  const src = join(dir, `type3-${count}-${sizes}.ps`);
  const out = join(dir, `type3-${count}-${sizes}.pdf`);
  writeFileSync(src, ps);
  execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite', `-sOutputFile=${out}`, src]);
  const bytes = new Uint8Array(readFileSync(out));
  expect(Buffer.from(bytes).includes('/Type3')).toBe(true);
  return bytes;
}

const complex = async (bytes: Uint8Array) =>
  (await preflight(bytes, { product: 'duvet-cover', variant: '200x200' }, { pool })).findings.filter((f) => f.code === 'pdf-too-complex').map((f) => f.message);

describe('the render-cost screen counts a Type 3 glyph once per size it is drawn at', () => {
  it('keeps a glyph shown at 20,000 sizes from the renderers, before any draws it', async () => {
    const messages = await complex(type3Page(20_000, 'many'));
    expect(messages.join(' ')).toMatch(/drawing it would take a renderer 10 s or more/);
  }, 60_000);

  it('draws the same glyph at 20 sizes', async () => {
    expect(await complex(type3Page(20, 'many'))).toEqual([]);
  }, 60_000);
});
