/**
 * Issue 33: classes on which `check` itself broke its bounds (1 GB, 30 s, a schema-valid report with
 * the right finding), and their close relatives — JBIG2 sizes declared in any segment, enormous
 * counts of content operators, predictor parameters, font programs whose glyphs call themselves,
 * names from the file that meet JavaScript's own object keys, and actions hidden deep in chains.
 * Each file is built here, deterministically, at test time.
 */
import { deflateSync } from 'node:zlib';
import { onePage, stream, writePdf } from './pdf-writer.mjs';

/**
 * One JBIG2 segment as embedded in a PDF (ISO 32000-2 §7.4.7: no file header): its number, type,
 * page association (1 byte), the segments it refers to (1 byte each), and its data.
 */
export function jbig2Segment(number, type, data, { referred = [], page = 1 } = {}) {
  const refs = Buffer.from(referred);
  const head = Buffer.alloc(6);
  head.writeUInt32BE(number, 0);
  head[4] = type;
  head[5] = referred.length << 5;
  const tail = Buffer.alloc(5);
  tail[0] = page;
  tail.writeUInt32BE(data.length, 1);
  return Buffer.concat([head, refs, tail, data]);
}

/** Page information segment data: `height` 0xffffffff with `striped` is a page of unknown height. */
export function jbig2PageData(width, height, { striped = false, stripe = 64 } = {}) {
  const d = Buffer.alloc(19);
  d.writeUInt32BE(width, 0);
  d.writeUInt32BE(height, 4);
  d.writeUInt32BE(300, 8);
  d.writeUInt32BE(300, 12);
  d[16] = 0;
  d.writeUInt16BE((striped ? 0x8000 : 0) | stripe, 17);
  return d;
}

/** Region segment information (§7.4.1): width, height, x, y, combination operator. */
function regionInfo(width, height, x = 0, y = 0) {
  const d = Buffer.alloc(17);
  d.writeUInt32BE(width, 0);
  d.writeUInt32BE(height, 4);
  d.writeUInt32BE(x, 8);
  d.writeUInt32BE(y, 12);
  return d;
}

/** An immediate generic region (type 38), arithmetic template 0 with the nominal AT pixels, over `data`. */
export function jbig2GenericRegion(width, height, { x = 0, y = 0, data = Buffer.alloc(32) } = {}) {
  return Buffer.concat([regionInfo(width, height, x, y), Buffer.from([0x00, 3, 0xff, 0xfd, 0xff, 2, 0xfe, 0xfe, 0xfe]), data]);
}

/** A 1-bit JBIG2 image XObject (image mask) of `segments`, declared `width` × `height` in the PDF. */
function jbig2Image(segments, { width = 64, height = 64, globals } = {}) {
  const parms = globals ? ` /DecodeParms << /JBIG2Globals ${globals} >>` : '';
  return stream(`/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /BitsPerComponent 1 /ImageMask true /Filter /JBIG2Decode${parms}`, Buffer.concat(segments));
}

/** A page that draws image object 5 over itself, with more objects from 6. */
function pageWithImage(image, more = []) {
  return onePage({ content: 'q 400 0 0 400 0 0 cm /Im Do Q', resources: '/XObject << /Im 5 0 R >>', extra: [image, ...more] });
}

/**
 * A minimal TrueType program: glyph 0 empty (or the composite `notdef`), glyph 1 a triangle, and
 * `composites` — each a list of component glyph numbers — as glyphs 2, 3, …; cmap maps 'A' (65)
 * onward to glyphs 2, 3, ….
 */
export function trueTypeFont({ composites = [], numGlyphs, notdef } = {}) {
  const glyphs = [notdef ? compositeGlyph(notdef) : Buffer.alloc(0), simpleTriangle(), ...composites.map(compositeGlyph)];
  const count = numGlyphs ?? glyphs.length;
  const glyf = [];
  const offsets = [0];
  for (const g of glyphs) {
    const padded = Buffer.concat([g, Buffer.alloc((4 - (g.length % 4)) % 4)]);
    glyf.push(padded);
    offsets.push(offsets[offsets.length - 1] + padded.length);
  }
  const loca = Buffer.alloc(offsets.length * 4);
  offsets.forEach((o, i) => loca.writeUInt32BE(o, i * 4));
  const head = Buffer.alloc(54);
  head.writeUInt32BE(0x00010000, 0);
  head.writeUInt32BE(0x5f0f3cf5, 12); // magic
  head.writeUInt16BE(1000, 18); // unitsPerEm
  head.writeInt16BE(1000, 40); // xMax
  head.writeInt16BE(1000, 42); // yMax
  head.writeInt16BE(1, 50); // long loca
  const hhea = Buffer.alloc(36);
  hhea.writeUInt32BE(0x00010000, 0);
  hhea.writeInt16BE(800, 4);
  hhea.writeInt16BE(-200, 6);
  hhea.writeUInt16BE(1000, 10);
  hhea.writeUInt16BE(count, 34);
  const maxp = Buffer.alloc(32);
  maxp.writeUInt32BE(0x00010000, 0);
  maxp.writeUInt16BE(count, 4);
  maxp.writeUInt16BE(3, 6); // maxPoints
  maxp.writeUInt16BE(1, 8); // maxContours
  maxp.writeUInt16BE(64, 10); // maxCompositePoints
  maxp.writeUInt16BE(4, 12);
  maxp.writeUInt16BE(2, 14); // maxZones
  maxp.writeUInt16BE(16, 28); // maxComponentElements
  maxp.writeUInt16BE(2, 30); // maxComponentDepth
  const hmtx = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) hmtx.writeUInt16BE(1000, i * 4);
  const post = Buffer.alloc(32);
  post.writeUInt32BE(0x00030000, 0);
  const tables = { cmap: cmapFormat4(65, Math.max(1, glyphs.length - 2), 2), glyf: Buffer.concat(glyf), head, hhea, hmtx, loca, maxp, post };
  return sfnt(tables);
}

function simpleTriangle() {
  const g = Buffer.alloc(10 + 2 + 2 + 3 + 6);
  g.writeInt16BE(1, 0); // one contour
  g.writeInt16BE(1000, 6);
  g.writeInt16BE(1000, 8);
  g.writeUInt16BE(2, 10); // last point 2
  g.writeUInt16BE(0, 12); // no instructions
  g.set([1, 1, 1], 14); // on-curve, 2-byte coordinates
  const xs = [0, 1000, -500];
  const ys = [0, 0, 1000];
  xs.forEach((x, i) => g.writeInt16BE(x, 17 + i * 2)); // x deltas …
  const out = Buffer.concat([g.subarray(0, 17 + 6), Buffer.alloc(6)]);
  ys.forEach((y, i) => out.writeInt16BE(y, 23 + i * 2)); // … then y deltas
  return out;
}

/** A composite glyph of `components` (glyph numbers), each at offset (0, 0), words as arguments. */
function compositeGlyph(components) {
  const parts = components.map((glyph, i) => {
    const c = Buffer.alloc(8);
    c.writeUInt16BE(0x0001 | 0x0002 | (i < components.length - 1 ? 0x0020 : 0), 0); // ARG_1_AND_2_ARE_WORDS, ARGS_ARE_XY_VALUES, MORE_COMPONENTS
    c.writeUInt16BE(glyph, 2);
    return c;
  });
  const head = Buffer.alloc(10);
  head.writeInt16BE(-1, 0);
  head.writeInt16BE(1000, 6);
  head.writeInt16BE(1000, 8);
  return Buffer.concat([head, ...parts]);
}

/** A (3,1) cmap of format 4 mapping `count` codes from `first` to glyphs from `glyph`. */
function cmapFormat4(first, count, glyph) {
  const segs = 2;
  const sub = Buffer.alloc(16 + segs * 8);
  sub.writeUInt16BE(4, 0);
  sub.writeUInt16BE(sub.length, 2);
  sub.writeUInt16BE(segs * 2, 6);
  sub.writeUInt16BE(2, 8);
  sub.writeUInt16BE(0, 10);
  sub.writeUInt16BE(0, 12);
  let p = 14;
  sub.writeUInt16BE(first + count - 1, p);
  sub.writeUInt16BE(0xffff, p + 2);
  p += 4 + 2; // reservedPad
  sub.writeUInt16BE(first, p);
  sub.writeUInt16BE(0xffff, p + 2);
  p += 4;
  sub.writeUInt16BE((glyph - first) & 0xffff, p);
  sub.writeInt16BE(1, p + 2);
  p += 4;
  sub.writeUInt16BE(0, p);
  sub.writeUInt16BE(0, p + 2);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0, 0);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(3, 4);
  head.writeUInt16BE(1, 6);
  head.writeUInt32BE(12, 8);
  return Buffer.concat([head, sub]);
}

/** An sfnt of `tables` (tag → data), sorted by tag, 4-byte aligned. */
function sfnt(tables) {
  const tags = Object.keys(tables).sort();
  const dir = Buffer.alloc(12 + tags.length * 16);
  dir.writeUInt32BE(0x00010000, 0);
  dir.writeUInt16BE(tags.length, 4);
  let offset = dir.length;
  const bodies = [];
  tags.forEach((tag, i) => {
    const data = tables[tag];
    const at = 12 + i * 16;
    dir.write(tag.padEnd(4, ' '), at, 'latin1');
    dir.writeUInt32BE(offset, at + 8);
    dir.writeUInt32BE(data.length, at + 12);
    const padded = Buffer.concat([data, Buffer.alloc((4 - (data.length % 4)) % 4)]);
    bodies.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([dir, ...bodies]);
}

/** A Type 2 charstring number (−107…107), as one byte. */
const t2 = (n) => n + 139;

/**
 * A bare CFF program (FontFile3 /Type1C) of `glyphs` glyphs after .notdef, each calling global
 * subroutine 0 `fanOut` times; subroutine i calls subroutine i + 1 `fanOut` times, `depth` deep:
 * fanOut^depth calls to draw one glyph.
 */
export function cffFont({ glyphs = 40, fanOut = 30, depth = 10 } = {}) {
  const call = (subr) => [t2(subr - 107), 29]; // callgsubr, bias 107
  const subrs = Array.from({ length: depth }, (_, i) => (i === depth - 1 ? [11] : [...Array.from({ length: fanOut }, () => call(i + 1)).flat(), 11]));
  const glyph = [t2(0), t2(0), 21, ...Array.from({ length: fanOut }, () => call(0)).flat(), 14]; // rmoveto, the calls, endchar
  const charStrings = [[14], ...Array.from({ length: glyphs }, () => glyph)];
  const index = (items) => {
    if (items.length === 0) return [0, 0];
    const out = [items.length >> 8, items.length & 0xff, 4];
    let offset = 1;
    for (const item of [[], ...items]) {
      offset += item.length;
      out.push((offset >>> 24) & 0xff, (offset >>> 16) & 0xff, (offset >>> 8) & 0xff, offset & 0xff);
    }
    for (const item of items) out.push(...item);
    return out;
  };
  const top = [29, 0, 0, 0, 0, 17]; // CharStrings at (patched below)
  const head = [1, 0, 4, 1, ...index([[0x4c, 0x6f, 0x6f, 0x70]]), ...index([top]), ...index([]), ...index(subrs)];
  const bytes = Buffer.from([...head, ...index(charStrings)]);
  bytes.writeInt32BE(head.length, bytes.indexOf(29, 4) + 1);
  return bytes;
}

/**
 * A Type 1 program (FontFile) whose glyphs call subroutine 4 `fanOut` times; subroutine 4 + i calls
 * 4 + i + 1 as often, `depth` deep. Its private part is eexec-encrypted, its charstrings too.
 */
export function type1Font({ fanOut = 30, depth = 10 } = {}) {
  const encrypt = (plain, key) => {
    let r = key;
    const out = Buffer.alloc(plain.length);
    for (let i = 0; i < plain.length; i++) {
      const c = plain[i] ^ (r >> 8);
      out[i] = c;
      r = ((c + r) * 52845 + 22719) & 0xffff;
    }
    return out;
  };
  const charstring = (codes) => encrypt(Buffer.concat([Buffer.alloc(4), Buffer.from(codes)]), 4330);
  const call = (subr) => [t2(subr), 10];
  const subrs = Array.from({ length: 4 + depth }, (_, i) => (i < 4 || i === 3 + depth ? [11] : [...Array.from({ length: fanOut }, () => call(i + 1)).flat(), 11]));
  const glyph = [t2(0), t2(0), 13, ...Array.from({ length: fanOut }, () => call(4)).flat(), 14]; // hsbw, the calls, endchar
  const entry = (head, codes, tail) => {
    const cs = charstring(codes);
    return Buffer.concat([Buffer.from(`${head} ${cs.length} RD `, 'latin1'), cs, Buffer.from(` ${tail}\n`, 'latin1')]);
  };
  const priv = Buffer.concat([
    Buffer.alloc(4),
    Buffer.from(
      'dup /Private 8 dict dup begin /RD {string currentfile exch readstring pop} executeonly def /ND {noaccess def} executeonly def /NP {noaccess put} executeonly def /lenIV 4 def /MinFeature {16 16} def /password 5839 def /BlueValues [] def\n',
      'latin1',
    ),
    Buffer.from(`/Subrs ${subrs.length} array\n`, 'latin1'),
    ...subrs.map((codes, i) => entry(`dup ${i}`, codes, 'NP')),
    Buffer.from('ND\n2 index /CharStrings 4 dict dup begin\n', 'latin1'),
    entry('/.notdef', [t2(0), t2(0), 13, 14], 'ND'),
    ...['A', 'B', 'C'].map((name) => entry(`/${name}`, glyph, 'ND')),
    Buffer.from('end\nend\nreadonly put\nnoaccess put\ndup /FontName get exch definefont pop\nmark currentfile closefile\n', 'latin1'),
  ]);
  const clear = Buffer.from(
    '%!PS-AdobeFont-1.0: Loop 001\n11 dict begin /FontName /Loop def /Encoding StandardEncoding def /PaintType 0 def /FontType 1 def /FontMatrix [0.001 0 0 0.001 0 0] readonly def /FontBBox {0 0 1000 1000} readonly def currentdict end\ncurrentfile eexec\n',
    'latin1',
  );
  const trailer = Buffer.from(`${`${'0'.repeat(64)}\n`.repeat(8)}cleartomark\n`, 'latin1');
  return { bytes: Buffer.concat([clear, encrypt(priv, 55665), trailer]), lengths: [clear.length, priv.length, trailer.length] };
}

/** A page showing "ABC" in a Type 1 font whose descriptor carries `file` (FontFile or FontFile3 /Type1C). */
function type1Page(key, program, dict) {
  return onePage({
    content: 'BT /F1 48 Tf 50 200 Td (ABC) Tj ET',
    resources: '/Font << /F1 5 0 R >>',
    extra: [
      '<< /Type /Font /Subtype /Type1 /BaseFont /Loop /FirstChar 65 /LastChar 67 /Widths [1000 1000 1000] /FontDescriptor 6 0 R >>',
      `<< /Type /FontDescriptor /FontName /Loop /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /${key} 7 0 R >>`,
      stream(`${dict} /Filter /FlateDecode`, deflateSync(program)),
    ],
  });
}

/** A page showing `text` in TrueType font program `program` (FontFile2), as /F1. */
export function trueTypePage(program, text = 'ABC') {
  return onePage({
    content: `BT /F1 48 Tf 50 200 Td (${text}) Tj ET`,
    resources: '/Font << /F1 5 0 R >>',
    extra: [
      '<< /Type /Font /Subtype /TrueType /BaseFont /Cycle /FirstChar 65 /LastChar 90 /Widths [1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000 1000] /FontDescriptor 6 0 R >>',
      '<< /Type /FontDescriptor /FontName /Cycle /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>',
      stream(`/Length1 ${program.length} /Filter /FlateDecode`, deflateSync(program)),
    ],
  });
}

/** @returns {Promise<{ name: string, bytes: Uint8Array, expect: string[], why: string, issue: 33 }[]>} */
export async function checkClasses() {
  const cases = [];
  const add = (name, bytes, expect, why) => cases.push({ name, bytes, expect, why, issue: 33 });

  // 1. JBIG2: every segment that declares a size.
  add(
    'jbig2-region-after-end-of-stripe.pdf',
    pageWithImage(
      jbig2Image([
        jbig2Segment(0, 48, jbig2PageData(64, 0xffffffff, { striped: true })),
        jbig2Segment(1, 49, Buffer.from([0, 0, 0, 63])),
        jbig2Segment(2, 38, jbig2GenericRegion(60_000, 60_000, { y: 64 })),
      ]),
    ),
    ['image-too-large'],
    'a striped JBIG2 page whose generic region, after an end-of-stripe segment, is 60,000 × 60,000 px',
  );

  const page64 = () => jbig2Segment(0, 48, jbig2PageData(64, 64));
  const huge = (number) => jbig2Segment(number, 38, jbig2GenericRegion(60_000, 60_000));
  add(
    'jbig2-region-after-end-of-page.pdf',
    pageWithImage(jbig2Image([page64(), jbig2Segment(1, 50, Buffer.alloc(0)), huge(2)])),
    ['image-too-large'],
    'a JBIG2 stream whose 60,000 × 60,000 px region comes after its end-of-page segment (pdf.js reads on)',
  );
  // A generic region of unknown length ends with its closing pattern (0xFF 0xAC and its row count).
  const unknownLength = Buffer.concat([jbig2GenericRegion(64, 8, { data: Buffer.alloc(8) }), Buffer.from([0xff, 0xac, 0, 0, 0, 8])]);
  const unknownSegment = jbig2Segment(1, 38, unknownLength);
  unknownSegment.writeUInt32BE(0xffffffff, 7);
  add(
    'jbig2-region-after-unknown-length-region.pdf',
    pageWithImage(jbig2Image([page64(), unknownSegment, huge(2)])),
    ['image-too-large'],
    'a JBIG2 region of 60,000 × 60,000 px after a generic region whose length is left to be found by its end pattern',
  );
  add(
    'jbig2-page-in-globals-100000px.pdf',
    pageWithImage(jbig2Image([jbig2Segment(1, 38, jbig2GenericRegion(64, 64))], { globals: '6 0 R' }), [stream('', jbig2Segment(0, 48, jbig2PageData(100_000, 100_000)))]),
    ['image-too-large'],
    'a JBIG2 image whose page information segment, in its /JBIG2Globals, says 100,000 × 100,000 px',
  );
  const patternDict = Buffer.alloc(7);
  patternDict[0] = 0; // arithmetic, template 0
  patternDict[1] = 255;
  patternDict[2] = 255;
  patternDict.writeUInt32BE(0xfffffffe, 3);
  add(
    'jbig2-pattern-dictionary-4-billion-patterns.pdf',
    pageWithImage(jbig2Image([page64(), jbig2Segment(1, 16, Buffer.concat([patternDict, Buffer.alloc(16)]))])),
    ['image-too-large', 'pdf-too-complex'],
    'a JBIG2 pattern dictionary of 4 billion 255 × 255 px patterns (decoded as one collective bitmap)',
  );
  const halftone = Buffer.alloc(17 + 1 + 20);
  jbig2GenericRegion(64, 64).subarray(0, 17).copy(halftone);
  halftone.writeUInt32BE(100_000, 18);
  halftone.writeUInt32BE(100_000, 22);
  add(
    'jbig2-halftone-grid-100000.pdf',
    pageWithImage(
      jbig2Image([
        page64(),
        jbig2Segment(1, 16, Buffer.concat([Buffer.from([0, 4, 4, 0, 0, 0, 3]), Buffer.alloc(16)])),
        jbig2Segment(2, 22, Buffer.concat([halftone, Buffer.alloc(16)]), { referred: [1] }),
      ]),
    ),
    ['image-too-large', 'pdf-too-complex'],
    'a JBIG2 halftone region of 64 × 64 px over a grid of 100,000 × 100,000 cells',
  );
  const textRegion = Buffer.alloc(17 + 2 + 4);
  jbig2GenericRegion(64, 64).subarray(0, 17).copy(textRegion);
  textRegion.writeUInt16BE(0, 17);
  textRegion.writeUInt32BE(0xffffffff, 19);
  const symbols = Buffer.alloc(2 + 8 + 8);
  symbols.writeUInt16BE(0, 0);
  Buffer.from([3, 0xff, 0xfd, 0xff, 2, 0xfe, 0xfe, 0xfe]).copy(symbols, 2);
  symbols.writeUInt32BE(1, 10);
  symbols.writeUInt32BE(1, 14);
  add(
    'jbig2-text-region-4-billion-instances.pdf',
    pageWithImage(jbig2Image([page64(), jbig2Segment(1, 0, Buffer.concat([symbols, Buffer.alloc(16)])), jbig2Segment(2, 6, Buffer.concat([textRegion, Buffer.alloc(16)]), { referred: [1] })])),
    ['pdf-too-complex'],
    'a JBIG2 text region of 64 × 64 px that declares 4,294,967,295 symbol instances',
  );
  const manySymbols = Buffer.from(symbols);
  manySymbols.writeUInt32BE(0xffffffff, 10);
  manySymbols.writeUInt32BE(0xffffffff, 14);
  add(
    'jbig2-symbol-dictionary-4-billion-symbols.pdf',
    pageWithImage(jbig2Image([page64(), jbig2Segment(1, 0, Buffer.concat([manySymbols, Buffer.alloc(16)]))])),
    ['pdf-too-complex'],
    'a JBIG2 symbol dictionary that declares 4,294,967,295 new symbols',
  );
  add(
    'jbig2-2000-regions-of-4000px.pdf',
    pageWithImage(jbig2Image([jbig2Segment(0, 48, jbig2PageData(4000, 4000)), ...Array.from({ length: 2000 }, (_, i) => jbig2Segment(i + 1, 38, jbig2GenericRegion(4000, 4000)))])),
    ['pdf-too-complex'],
    'a JBIG2 image of 4,000 × 4,000 px (within every size limit) made of 2,000 regions of its full size: 32 billion pixels to decode',
  );
  // Behind Flate, past the first MiB a header reader looks at: 2 MiB of a small region's data first.
  add(
    'jbig2-behind-flate-region-past-2mib.pdf',
    pageWithImage(
      stream(
        '/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 1 /ImageMask true /Filter [/FlateDecode /JBIG2Decode]',
        deflateSync(Buffer.concat([page64(), jbig2Segment(1, 38, jbig2GenericRegion(64, 64, { data: Buffer.alloc(2 << 20) })), huge(2)])),
      ),
    ),
    ['image-too-large'],
    'a Flate-wrapped JBIG2 stream whose 60,000 × 60,000 px region lies after 2 MiB of a small region’s data',
  );

  // 2, 3. Enormous counts of text runs and hairlines on one page.
  add(
    'text-runs-2.4-million.pdf',
    onePage({
      content: concatContent('BT /F1 1 Tf 0 0 Td\n', '0.0001 0 Td (a) Tj\n', 2_400_000, 'ET'),
      resources: '/Font << /F1 5 0 R >>',
      extra: ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
    }),
    ['pdf-too-complex'],
    '2,400,000 text runs on one page',
  );
  add('hairlines-1.6-million.pdf', onePage({ content: concatContent('0 w 0 0 0 RG\n', '0 0 m 0.0002 400 l S\n', 1_600_000, '') }), ['pdf-too-complex'], '1,600,000 hairlines on one page');

  // Their relatives: what renderers work through for a page, however few operators it has.
  const img2x2 = stream('/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /DeviceRGB', Buffer.alloc(12, 0x80));
  add(
    'image-drawn-over-the-page-2000-times.pdf',
    onePage({ content: concatContent('', 'q 400 0 0 400 0 0 cm /Im Do Q\n', 2_000, ''), resources: '/XObject << /Im 5 0 R >>', extra: [img2x2] }),
    ['pdf-too-complex'],
    'a 2 × 2 px image drawn over the whole page 2,000 times (43 s in PDFium: it resamples every pixel every time)',
  );
  add(
    'shading-over-the-page-1000-times.pdf',
    onePage({
      content: concatContent('', '/Sh sh\n', 1_000, ''),
      resources:
        '/Shading << /Sh << /ShadingType 3 /ColorSpace /DeviceRGB /Coords [200 200 0 200 200 300] /Function << /FunctionType 2 /Domain [0 1] /C0 [1 0 0] /C1 [0 0 1] /N 1 >> /Extend [true true] >> >>',
    }),
    ['pdf-too-complex'],
    'a radial shading painted over the whole page 1,000 times',
  );
  add(
    'dash-of-0.0001-pt.pdf',
    onePage({ content: `[0.0001] 0 d 1 w ${Array.from({ length: 20 }, (_, i) => `${i * 20} 0 m ${i * 20} 400 l S`).join(' ')}` }),
    ['pdf-too-complex'],
    '20 lines dashed every 0.0001 pt: 80 million dashes (26 s in PDFium)',
  );
  add(
    'text-one-run-of-2-million-glyphs.pdf',
    onePage({ content: concatContent('BT /F1 1 Tf 0 0 Td [(', 'a', 2_000_000, ')] TJ ET'), resources: '/Font << /F1 5 0 R >>', extra: ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'] }),
    ['page-size-mismatch'],
    'one TJ showing 2,000,000 glyphs, most of them off the page (drawn by PDFium within its bounds: only the size is wrong)',
  );
  add('one-path-of-3-million-segments.pdf', onePage({ content: concatContent('0 0 m\n', '400 400 l 0 1 l\n', 1_500_000, 'S') }), ['pdf-too-complex'], 'one path of 3,000,000 segments, stroked');
  add(
    'type3-glyph-that-shows-itself.pdf',
    onePage({
      content: 'BT /T3 24 Tf 50 200 Td (a) Tj ET',
      resources: '/Font << /T3 5 0 R >>',
      extra: [
        '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a 6 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] /Resources << /Font << /T3 5 0 R >> >> >>',
        stream('', '1000 0 0 0 1000 1000 d1 0 0 500 500 re f BT /T3 500 Tf 0 0 Td (aa) Tj ET'),
      ],
    }),
    ['page-size-mismatch'],
    'a Type 3 glyph whose procedure shows the same glyph twice, in its own font (renderers stop the recursion; only the size is wrong)',
  );
  add(
    'clip-paths-1-million.pdf',
    onePage({ content: concatContent('q ', '0 0 400 400 re W n\n', 1_000_000, 'Q 0 0 1 rg 0 0 400 400 re f') }),
    ['page-size-mismatch', 'pdf-too-complex'],
    '1,000,000 clipping paths on one page (5 s in PDFium: within its bounds, or refused)',
  );
  add(
    'graphics-state-saved-1-million-times.pdf',
    onePage({ content: concatContent('', 'q ', 1_000_000, '0 0 1 rg 0 0 400 400 re f') }),
    ['pdf-too-complex'],
    'q a million times without Q (pdf.js saves its canvas state at each: more than a minute)',
  );
  add(
    'marked-content-nested-500000-deep.pdf',
    onePage({ content: concatContent('', '/P BMC ', 500_000, '0 0 1 rg 0 0 400 400 re f') }),
    ['pdf-too-complex'],
    'marked-content sequences nested 500,000 deep (PDFium ran out of memory)',
  );
  add(
    'type3-glyph-of-1000-fills-shown-100000-times.pdf',
    onePage({
      content: concatContent('BT /T3 1 Tf 50 200 Td ', '(aaaaaaaaaa) Tj\n', 10_000, 'ET'),
      resources: '/Font << /T3 5 0 R >>',
      extra: [
        '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a 6 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [0] >>',
        concatContent('1000 0 d0 ', '0 0 1000 1000 re f\n', 1_000, ''),
      ],
    }),
    ['page-size-mismatch'],
    'a Type 3 glyph of 1,000 fills shown 100,000 times (pdf.js replays it at every glyph: drawn by PDFium, which draws it once; only the size is wrong)',
  );
  add(
    'transparency-group-over-the-page-2000-times.pdf',
    onePage({
      content: concatContent('', '/Fm Do\n', 2_000, ''),
      resources: '/XObject << /Fm 5 0 R >>',
      extra: [stream('/Type /XObject /Subtype /Form /BBox [0 0 400 400] /Group << /S /Transparency /I true /K true >>', '0 0 1 rg 0 0 400 400 re f')],
    }),
    ['pdf-too-complex'],
    'a transparency group over the page drawn 2,000 times (pdf.js: 34 s and 11.8 GB, it keeps a buffer for each; PDFium 19 s)',
  );
  add(
    'soft-mask-of-200-fills-under-3000-objects.pdf',
    onePage({
      content: concatContent('/GS0 gs\n', '0 0 1 rg 0 0 400 400 re f\n', 3_000, ''),
      resources: '/ExtGState << /GS0 << /SMask << /S /Luminosity /G 5 0 R >> >> >>',
      extra: [
        stream(
          '/Type /XObject /Subtype /Form /BBox [0 0 400 400] /Group << /S /Transparency /CS /DeviceGray >> /Filter /FlateDecode',
          deflateSync(Buffer.from(`0.5 g ${'0 0 400 400 re f\n'.repeat(200)}`)),
        ),
      ],
    }),
    ['pdf-too-complex'],
    'a soft mask of 200 fills over the page, and 3,000 objects painted through it (each has it drawn again: minutes in both engines)',
  );
  const calculator = (steps) => `{ ${'0.5 mul '.repeat(steps)} dup dup }`;
  add(
    'function-shading-of-a-20000-step-calculator.pdf',
    onePage({
      content: '/Sh sh',
      resources: '/Shading << /Sh << /ShadingType 1 /ColorSpace /DeviceRGB /Domain [0 1 0 1] /Matrix [400 0 0 400 0 0] /Function 5 0 R >> >>',
      extra: [stream('/FunctionType 4 /Domain [0 1 0 1] /Range [0 1 0 1 0 1]', calculator(20_000))],
    }),
    ['pdf-too-complex'],
    'a function-based shading over the page whose calculator function takes 20,000 steps (PDFium evaluates it at every pixel: over a minute)',
  );
  add(
    'devicen-image-with-a-2000-step-tint-transform.pdf',
    onePage({
      content: 'q 400 0 0 400 0 0 cm /Im Do Q',
      resources: '/XObject << /Im 5 0 R >>',
      extra: [
        stream(
          '/Type /XObject /Subtype /Image /Width 1000 /Height 1000 /BitsPerComponent 8 /ColorSpace [/DeviceN [/A /B /C] /DeviceCMYK 6 0 R] /Filter /FlateDecode',
          deflateSync(Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 7) % 251))),
        ),
        stream('/FunctionType 4 /Domain [0 1 0 1 0 1] /Range [0 1 0 1 0 1 0 1]', `{ ${'0.9 mul '.repeat(2_000)} }`),
      ],
    }),
    ['pdf-too-complex'],
    'a 1,000 × 1,000 px DeviceN image whose tint transform takes 2,000 steps (evaluated at every pixel: 2 billion steps)',
  );
  const images = 9_000;
  add(
    'icc-images-9000-distinct.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 4 0 R /Resources << /XObject << ${Array.from({ length: images }, (_, i) => `/I${i} ${i + 6} 0 R`).join(' ')} >> >> >>`,
      concatContent('', '', 0, Array.from({ length: images }, (_, i) => `q 4 0 0 4 ${(i % 100) * 4} ${Math.floor(i / 100) * 4} cm /I${i} Do Q`).join('\n')),
      stream('/N 3 /Alternate /DeviceRGB', Buffer.alloc(128)),
      ...Array.from({ length: images }, (_, i) => stream('/Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace [/ICCBased 5 0 R]', Buffer.from([i & 255, 0, 0]))),
    ]),
    ['image-low-resolution'],
    '9,000 distinct ICC-based images of 1 × 1 px (pdf.js, which draws ICC-based images, kept 1.4 GB for them: drawn by PDFium)',
  );
  const pages = 8;
  const heavyPage = concatContent('0 w\n', '0 0 m 0 400 l S\n', 15_000, '');
  add(
    'pages-8-of-4-seconds-each.pdf',
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ')}] /Count ${pages} /MediaBox [0 0 400 400] >>`,
      heavyPage,
      ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>'),
    ]),
    ['pdf-too-complex'],
    '8 pages of 15,000 full-height hairlines each: within the page budget, 30 s or more together',
  );

  // 4. Predictor parameters: content as PNG rows of /Colors 4096 — read with other parameters
  // (once clamped to 64 colours here) it is other content; renderers read 300,000 hairlines.
  const hairlines = Buffer.from(`0 w 0 0 0 RG\n${Array.from({ length: 300_000 }, (_, i) => `${i % 400} 0 m ${i % 400} 400 l S`).join('\n')}`, 'latin1');
  add(
    'predictor-colors-4096.pdf',
    onePage({ content: stream('/Filter /FlateDecode /DecodeParms << /Predictor 12 /Colors 4096 /BitsPerComponent 8 /Columns 1 >>', deflateSync(pngRows(hairlines, 4096), { level: 9 })) }),
    ['pdf-too-complex'],
    'a content stream of 300,000 hairlines behind a PNG predictor of /Colors 4096',
  );
  add(
    'predictor-tiff-16-bit-content.pdf',
    onePage({ content: stream('/Filter /FlateDecode /DecodeParms << /Predictor 2 /Colors 1 /BitsPerComponent 16 /Columns 4096 >>', deflateSync(tiff16(hairlines, 8192), { level: 9 })) }),
    ['pdf-too-complex'],
    'a content stream of 300,000 hairlines behind a 16-bit TIFF predictor (once left undone here)',
  );
  add(
    'predictor-row-200-mb-per-stream.pdf',
    onePage({
      content: stream(
        '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Colors 1 /BitsPerComponent 8 /Columns 200000000 >>',
        deflateSync(Buffer.concat([Buffer.from([0]), Buffer.from('0 0 1 rg 0 0 400 400 re f')])),
      ),
      pageExtra: '/Contents [4 0 R 4 0 R 4 0 R 4 0 R]',
    }),
    ['pdf-too-complex'],
    'a 26-byte content stream behind a PNG predictor of 200 MB rows (a renderer allocates the row), listed 4 times',
  );

  // 5. A TrueType font whose composite glyphs form a cycle (each refers twice to the next).
  add(
    'truetype-composite-cycle.pdf',
    trueTypePage(
      trueTypeFont({
        composites: [
          [3, 3],
          [4, 4],
          [2, 2],
        ],
      }),
    ),
    ['font-unusable'],
    'a TrueType font whose composite glyphs refer to each other in a cycle, each twice',
  );

  // Its relatives: no cycle, but each glyph made of the next one twice, 30 deep (2^30 outlines
  // for a renderer that expands components as it meets them); and .notdef made of itself.
  add(
    'truetype-composite-doubling-30-deep.pdf',
    trueTypePage(trueTypeFont({ composites: Array.from({ length: 30 }, (_, i) => (i === 29 ? [1, 1] : [i + 3, i + 3])) })),
    ['font-unusable'],
    'a TrueType font whose glyphs are each made of the next one twice, 30 levels deep (a billion outlines to expand)',
  );
  add(
    'cff-subroutines-30-calls-10-deep.pdf',
    type1Page('FontFile3', cffFont(), '/Subtype /Type1C'),
    ['font-unusable', 'pdf-too-complex'],
    'a CFF font whose glyphs call a subroutine 30 times, each calling the next 30 times, 10 deep (30^10 calls per glyph)',
  );
  const t1 = type1Font();
  add(
    'type1-subroutines-30-calls-10-deep.pdf',
    type1Page('FontFile', t1.bytes, `/Length1 ${t1.lengths[0]} /Length2 ${t1.lengths[1]} /Length3 ${t1.lengths[2]}`),
    ['font-unusable', 'pdf-too-complex'],
    'a Type 1 font whose glyphs call a subroutine 30 times, each calling the next 30 times, 10 deep',
  );

  // 6. Names from the file that are JavaScript's own object keys.
  add(
    'resource-named-proto.pdf',
    onePage({
      content: '/__proto__ cs 1 0 0 sc 0 0 400 400 re f /constructor CS 0 0 1 SC 10 10 100 100 re S',
      resources: '/ColorSpace << /__proto__ [/ICCBased 5 0 R] /constructor /DeviceCMYK >>',
      extra: [stream('/N 3 /Alternate /DeviceRGB', Buffer.alloc(128))],
    }),
    ['colour-space-not-rgb', 'page-size-mismatch'],
    'colour spaces named /__proto__ and /constructor',
  );

  // Its relatives: every name-keyed map a file fills — resources of every kind, a filter, an
  // annotation subtype, an action type, Type 3 glyph names, a marked-content tag, a font name.
  const protoNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype'];
  add(
    'object-prototype-names-everywhere.pdf',
    onePage({
      content: [
        ...protoNames.map((n) => `/${n} cs 1 0 0 sc /${n} gs 0 0 10 10 re f`),
        '/Pattern cs /__proto__ scn 0 0 40 40 re f /__proto__ sh',
        '/OC /__proto__ BDC /__proto__ Do EMC /constructor BMC /toString Do EMC',
        'BT /__proto__ 12 Tf 10 300 Td <0001> Tj /constructor 12 Tf (a) Tj ET',
      ].join('\n'),
      resources: [
        `/ColorSpace << ${protoNames.map((n, i) => `/${n} ${i % 2 ? '/DeviceCMYK' : '[/ICCBased 7 0 R]'}`).join(' ')} >>`,
        `/ExtGState << ${protoNames.map((n) => `/${n} << /CA 0.5 /BM /${n} >>`).join(' ')} >>`,
        '/Pattern << /__proto__ << /PatternType 2 /Shading << /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 1 1] /Function << /FunctionType 2 /Domain [0 1] /C0 [0 0 0] /C1 [1 1 1] /N 1 >> >> >> >>',
        '/Shading << /__proto__ << /ShadingType 2 /ColorSpace /__proto__ /Coords [0 0 1 1] /Function << /FunctionType 2 /Domain [0 1] /C0 [0] /C1 [1] /N 1 >> >> >>',
        '/Properties << /__proto__ << /Type /OCG /Name (__proto__) >> >>',
        '/XObject << /__proto__ 8 0 R /toString 9 0 R >>',
        '/Font << /__proto__ 5 0 R /constructor 6 0 R >>',
      ].join(' '),
      pageExtra:
        '/Annots [<< /Type /Annot /Subtype /__proto__ /Rect [0 0 10 10] /F 4 /A << /S /__proto__ /Next << /S /constructor >> >> >> << /Type /Annot /Subtype /toString /Rect [0 0 10 10] /F 4 >>]',
      extra: [
        '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /__proto__ 10 0 R /constructor 10 0 R >> /Encoding << /Differences [0 /__proto__ /constructor] >> /FirstChar 0 /LastChar 1 /Widths [500 500] >>',
        '<< /Type /Font /Subtype /__proto__ /BaseFont /constructor /Encoding /__proto__ >>',
        stream('/N 3 /Alternate /__proto__', Buffer.alloc(128)),
        stream('/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace /__proto__ /Filter /__proto__ /DecodeParms << /__proto__ 1 >>', Buffer.alloc(12)),
        stream('/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /ColorSpace << /hasOwnProperty /DeviceGray >> >>', '/hasOwnProperty cs 0.5 sc 0 0 5 5 re f'),
        stream('', '500 0 d0 0 0 500 500 re f'),
      ],
    }),
    ['colour-space-not-rgb', 'page-size-mismatch'],
    'names that are JavaScript’s own object keys (__proto__, constructor, toString…) for resources of every kind, a filter, an annotation subtype, an action, Type 3 glyphs, a marked-content tag and a font',
  );

  // 7. JavaScript 64 levels down an action's /Next chain.
  let chain = '<< /S /JavaScript /JS (app.alert\\(1\\)) >>';
  for (let i = 0; i < 64; i++) chain = `<< /S /GoTo /D [3 0 R /Fit] /Next ${chain} >>`;
  add('javascript-64-down-next-chain.pdf', onePage({ catalogExtra: `/OpenAction ${chain}` }), ['pdf-active-content'], 'an OpenAction whose JavaScript is 64 actions down its /Next chain');
  // Its relatives: /Next as an array of actions, nested 100 deep; an action type given by reference;
  // and chains elsewhere, long and deep: outlines 100,000 items long whose last runs JavaScript, a
  // JavaScript name tree whose /Kids nest 20,000 deep, a form field 20,000 /Kids down whose widget
  // runs JavaScript on the page.
  let arrays = '<< /S /JavaScript /JS (this.print\\(\\)) >>';
  for (let i = 0; i < 100; i++) arrays = `<< /S /GoTo /D [3 0 R /Fit] /Next [<< /S /GoTo /D [3 0 R /Fit] >> ${arrays}] >>`;
  add('javascript-in-next-arrays-100-deep.pdf', onePage({ catalogExtra: `/OpenAction ${arrays}` }), ['pdf-active-content'], 'JavaScript 100 /Next arrays down an OpenAction');
  add(
    'launch-action-type-by-reference.pdf',
    onePage({ pageExtra: '/Annots [<< /Type /Annot /Subtype /Link /Rect [0 0 100 100] /A << /S 5 0 R /F (calc.exe) >> >>]', extra: ['/Launch'] }),
    ['pdf-active-content'],
    'a link whose action type, /Launch, is an indirect object',
  );
  const items = 100_000;
  const depth = 20_000;
  const first = 5;
  const outline = Array.from(
    { length: items },
    (_, i) => `<< /Title (${i}) /Parent 4 0 R ${i + 1 < items ? `/Next ${first + i + 1} 0 R` : '/A << /S /JavaScript /JS (app.alert\\(1\\)) >>'} ${i ? `/Prev ${first + i - 1} 0 R` : ''} >>`,
  );
  const treeFirst = first + items;
  const tree = Array.from({ length: depth }, (_, i) => (i + 1 < depth ? `<< /Kids [${treeFirst + i + 1} 0 R] >>` : '<< /Names [(x) << /S /JavaScript /JS (this.print\\(\\)) >>] >>'));
  const fieldFirst = treeFirst + depth;
  const fields = Array.from({ length: depth }, (_, i) =>
    i + 1 < depth
      ? `<< /T (f${i}) /Kids [${fieldFirst + i + 1} 0 R] ${i ? `/Parent ${fieldFirst + i - 1} 0 R` : ''} >>`
      : `<< /Type /Annot /Subtype /Widget /FT /Btn /Rect [0 0 20 20] /F 4 /P 3 0 R /Parent ${fieldFirst + i - 1} 0 R /AA << /E << /S /JavaScript /JS (app.alert\\(2\\)) >> >> >>`,
  );
  add(
    'javascript-at-the-end-of-long-and-deep-chains.pdf',
    writePdf([
      `<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R /Names << /JavaScript ${treeFirst} 0 R >> /AcroForm << /Fields [${fieldFirst} 0 R] >> >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Annots [${fieldFirst + depth - 1} 0 R] >>`,
      `<< /Type /Outlines /First ${first} 0 R /Last ${first + items - 1} 0 R /Count ${items} >>`,
      ...outline,
      ...tree,
      ...fields,
    ]),
    ['pdf-active-content'],
    'JavaScript at the end of 100,000 outline items, 20,000 name-tree levels down, and in a widget 20,000 form-field levels down (pdf.js walks the fields for minutes)',
  );
  return cases;
}

/** `data` as PNG-predicted rows of `rowLength` bytes, each behind filter type 0 (None). */
function pngRows(data, rowLength) {
  const rows = [];
  for (let i = 0; i < data.length; i += rowLength) rows.push(Buffer.from([0]), data.subarray(i, i + rowLength));
  return Buffer.concat(rows);
}

/** `data` (padded to whole rows of `rowLength` bytes) as 16-bit TIFF-predicted samples: each the difference from the one to its left. */
function tiff16(data, rowLength) {
  const out = Buffer.alloc(Math.ceil(data.length / rowLength) * rowLength, 0x20);
  data.copy(out);
  for (let r = out.length - rowLength; r >= 0; r -= rowLength) {
    for (let i = rowLength - 2; i >= 2; i -= 2) out.writeUInt16BE((out.readUInt16BE(r + i) - out.readUInt16BE(r + i - 2)) & 0xffff, r + i);
  }
  return out;
}

/** Deflated content: `head`, then `unit` `times` times, then `tail`. */
function concatContent(head, unit, times, tail) {
  return stream('/Filter /FlateDecode', deflateSync(Buffer.from(head + unit.repeat(times) + tail, 'latin1'), { level: 9 }));
}
