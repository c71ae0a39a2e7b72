/**
 * Random but valid print files for the transform properties: one to four pages, each of a layer's
 * size (possibly scaled uniformly, turned by /Rotate, expressed in /UserUnit, with its MediaBox away
 * from the origin, or a CropBox inside a larger MediaBox painted outside it), drawing solid rectangles and images through nested q/Q with cm, in every colour
 * space the fixes meet (DeviceRGB, DeviceGray, DeviceCMYK, ICCBased RGB and CMYK, Indexed,
 * Separation, DeviceN), images behind every filter chain producers write (Flate with and without
 * TIFF/PNG predictors, DCT, ASCII85 before DCT or Flate, LZW, RunLength), and the page content
 * split over several streams. Written by our own writer (test/helpers/pdf-build.ts), so the file is
 * exactly what the case says; the oracles that judge the fixes are MuPDF and Ghostscript.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';
import { ascii85Encode, lzwEncode, runLengthEncode } from '../helpers/filters.js';
import { PdfBuilder, streamObject } from '../helpers/pdf-build.js';

/** Layer sizes (mm) of the test product, all different so the check can tell the page order from sizes. */
export const LAYERS_MM: readonly [number, number][] = [
  [200, 300],
  [240, 180],
  [160, 160],
  [280, 210],
];
const PT_PER_MM = 72 / 25.4;

export type Space = 'rgb' | 'gray' | 'cmyk' | 'icc-rgb' | 'icc-cmyk' | 'indexed' | 'separation' | 'devicen';
export type ImageFilter = 'none' | 'flate' | 'flate-tiff' | 'flate-png' | 'dct' | 'a85-dct' | 'a85-flate' | 'lzw' | 'runlength';

export interface Paint {
  kind: 'rect' | 'image';
  space: Space;
  /** Colour components 0–1 (for images: the first of the image's four block colours). */
  colour: number[];
  /** Where, in fractions of the page box: x, y, width, height (well apart from the others). */
  cell: number;
  /** Nested q … cm … Q around the paint: each a matrix (translations and scales that cancel out). */
  nesting: number;
  /**
   * For a rectangle in a space set by cs: the colour set once, then a q … Q that sets another space
   * and colour, then the colour set again before painting — the state q/Q must restore.
   */
  reSet: boolean;
  filter: ImageFilter;
  /** Image size in pixels (square blocks of 2 × 2 colours). */
  pixels: number;
}

export interface PageCase {
  layer: number;
  rotate: 0 | 90 | 180 | 270;
  /** Uniform scale of the page against its layer (1: exact). */
  scale: number;
  userUnit: number;
  /** Origin of the MediaBox (pt, in user units). */
  origin: [number, number];
  paints: Paint[];
  /** How many content streams the page's content is split into. */
  streams: number;
  /** A MediaBox this much larger (pt, user units) on every side, painted there, with a CropBox of the page's size; 0: MediaBox only. */
  cropMargin: number;
}

export interface FileCase {
  pages: PageCase[];
}

const unit = fc.integer({ min: 0, max: 20 }).map((n) => n / 20);
const paint: fc.Arbitrary<Omit<Paint, 'cell'>> = fc.record({
  kind: fc.constantFrom('rect' as const, 'rect' as const, 'image' as const),
  space: fc.constantFrom<Space>('rgb', 'gray', 'cmyk', 'icc-rgb', 'icc-cmyk', 'indexed', 'separation', 'devicen'),
  colour: fc.tuple(unit, unit, unit, unit),
  nesting: fc.integer({ min: 0, max: 4 }),
  reSet: fc.boolean(),
  filter: fc.constantFrom<ImageFilter>('none', 'flate', 'flate-tiff', 'flate-png', 'dct', 'a85-dct', 'a85-flate', 'lzw', 'runlength'),
  pixels: fc.constantFrom(8, 24, 64, 160),
});

/** One to four pages, one per layer, in any order. */
export const fileCase: fc.Arbitrary<FileCase> = fc
  .integer({ min: 1, max: 4 })
  .chain((n) =>
    fc.tuple(
      fc.shuffledSubarray([0, 1, 2, 3].slice(0, n), { minLength: n, maxLength: n }),
      fc.array(
        fc.record({
          rotate: fc.constantFrom<0 | 90 | 180 | 270>(0, 90, 180, 270),
          scale: fc.constantFrom(1, 1, 0.5, 0.8),
          userUnit: fc.constantFrom(1, 1, 1, 2),
          origin: fc.tuple(fc.constantFrom(0, 0, -50, 30), fc.constantFrom(0, 0, 20, -10)),
          paints: fc.array(paint, { minLength: 1, maxLength: 4 }),
          streams: fc.integer({ min: 1, max: 3 }),
          cropMargin: fc.constantFrom(0, 0, 24),
        }),
        { minLength: n, maxLength: n },
      ),
    ),
  )
  .map(([layers, pages]) => ({ pages: pages.map((p, i) => ({ ...p, layer: layers[i]!, paints: p.paints.map((x, cell) => ({ ...x, cell })) })) }));

/** The pages' shown size (pt): the layer's, scaled, turned by /Rotate as a viewer shows it. */
export function shownSizePt(page: PageCase): [number, number] {
  const [w, h] = LAYERS_MM[page.layer]!;
  return [w * PT_PER_MM * page.scale, h * PT_PER_MM * page.scale];
}

let iccCache: { rgb: Uint8Array; cmyk: Uint8Array } | null = null;
/** Ghostscript's own ICC profiles (installed with it): an sRGB-like RGB and its default CMYK. */
function iccProfiles(): { rgb: Uint8Array; cmyk: Uint8Array } {
  if (iccCache) return iccCache;
  const base = '/usr/share/ghostscript';
  const dir = existsSync(base)
    ? readdirSync(base)
        .map((v) => join(base, v, 'iccprofiles'))
        .find((d) => existsSync(join(d, 'default_cmyk.icc')))
    : undefined;
  if (!dir) throw new Error("Ghostscript's ICC profiles are not installed (apt-get install ghostscript)");
  iccCache = { rgb: new Uint8Array(readFileSync(join(dir, 'default_rgb.icc'))), cmyk: new Uint8Array(readFileSync(join(dir, 'default_cmyk.icc'))) };
  return iccCache;
}

const n = (v: number) => String(Math.round(v * 10000) / 10000);

/** Components of a space, and the operands that set a colour in it (values 0–1). */
function components(space: Space): number {
  return space === 'rgb' || space === 'icc-rgb' ? 3 : space === 'gray' || space === 'indexed' || space === 'separation' ? 1 : space === 'devicen' ? 2 : 4;
}

/** Four block colours of an image in its space (the first is the paint's colour, the others derived). */
function blockColours(p: Paint): number[][] {
  const c = components(p.space);
  const first = p.colour.slice(0, c);
  return [0, 1, 2, 3].map((k) => (p.space === 'indexed' ? [k] : first.map((v, i) => (k === 0 ? v : (v + 0.3 * k + 0.17 * i) % 1))));
}

/** 8-bit samples of an image of `px` × `px`: a 2 × 2 grid of solid blocks. */
function imageSamples(p: Paint): Uint8Array {
  const c = components(p.space);
  const colours = blockColours(p).map((col) => col.map((v) => (p.space === 'indexed' ? v : Math.round(v * 255))));
  const px = p.pixels;
  const out = new Uint8Array(px * px * c);
  for (let y = 0; y < px; y++) {
    for (let x = 0; x < px; x++) {
      const block = (y < px / 2 ? 0 : 2) + (x < px / 2 ? 0 : 1);
      out.set(colours[block]!, (y * px + x) * c);
    }
  }
  return out;
}

/** Rows with a PNG predictor tag in front (Up for every row but the first, which is None). */
function pngPredict(samples: Uint8Array, rowBytes: number): Uint8Array {
  const rows = samples.length / rowBytes;
  const out = new Uint8Array(rows * (rowBytes + 1));
  for (let y = 0; y < rows; y++) {
    out[y * (rowBytes + 1)] = y === 0 ? 0 : 2;
    for (let x = 0; x < rowBytes; x++) {
      const v = samples[y * rowBytes + x]!;
      out[y * (rowBytes + 1) + 1 + x] = y === 0 ? v : (v - samples[(y - 1) * rowBytes + x]! + 256) & 0xff;
    }
  }
  return out;
}

/** TIFF predictor 2: each sample minus the same component of the pixel to its left. */
function tiffPredict(samples: Uint8Array, rowBytes: number, c: number): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = i % rowBytes < c ? samples[i]! : (samples[i]! - samples[i - c]! + 256) & 0xff;
  return out;
}

/** The image's filter, decode parameters and data. DCT only where JPEG has the space (gray, RGB, CMYK); elsewhere Flate. */
async function encodeImage(p: Paint, samples: Uint8Array): Promise<{ filter: string; parms: string; data: Uint8Array; decode?: string }> {
  const c = components(p.space);
  const rowBytes = p.pixels * c;
  const jpegOk = ['rgb', 'gray', 'cmyk', 'icc-rgb', 'icc-cmyk'].includes(p.space);
  const filter = !jpegOk && (p.filter === 'dct' || p.filter === 'a85-dct') ? 'flate' : p.filter;
  const jpeg = async () => {
    const channels = c as 1 | 3 | 4;
    let img = sharp(Buffer.from(samples), { raw: { width: p.pixels, height: p.pixels, channels: channels === 4 ? 4 : channels } });
    if (channels === 4) img = img.toColourspace('cmyk');
    // One band stays one component (libvips would write a three-component JPEG otherwise).
    if (channels === 1) img = img.toColourspace('b-w');
    // libjpeg writes CMYK as Adobe does (inverted, with the Adobe marker): in a PDF such a JPEG
    // carries /Decode [1 0 1 0 1 0 1 0] (encodeImage's `decode`), as Photoshop's do.
    const data = await img.jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).toBuffer();
    const made = (await sharp(data).metadata()).channels;
    if (made !== channels) throw new Error(`sharp wrote a JPEG of ${made} components for ${channels}`);
    return new Uint8Array(data);
  };
  switch (filter) {
    case 'none':
      return { filter: '', parms: '', data: samples };
    case 'flate':
      return { filter: '/Filter /FlateDecode', parms: '', data: deflateSync(samples) };
    case 'flate-tiff':
      return { filter: '/Filter /FlateDecode', parms: `/DecodeParms << /Predictor 2 /Colors ${c} /Columns ${p.pixels} /BitsPerComponent 8 >>`, data: deflateSync(tiffPredict(samples, rowBytes, c)) };
    case 'flate-png':
      return { filter: '/Filter /FlateDecode', parms: `/DecodeParms << /Predictor 15 /Colors ${c} /Columns ${p.pixels} /BitsPerComponent 8 >>`, data: deflateSync(pngPredict(samples, rowBytes)) };
    case 'dct':
      return { filter: '/Filter /DCTDecode', parms: '', data: await jpeg(), decode: c === 4 ? '/Decode [1 0 1 0 1 0 1 0]' : '' };
    case 'a85-dct':
      return { filter: '/Filter [/ASCII85Decode /DCTDecode]', parms: '', data: ascii85Encode(await jpeg()), decode: c === 4 ? '/Decode [1 0 1 0 1 0 1 0]' : '' };
    case 'a85-flate':
      return { filter: '/Filter [/ASCII85Decode /FlateDecode]', parms: '', data: ascii85Encode(deflateSync(samples)) };
    case 'lzw':
      return { filter: '/Filter /LZWDecode', parms: '', data: lzwEncode(samples) };
    case 'runlength':
      return { filter: '/Filter /RunLengthDecode', parms: '', data: runLengthEncode(samples) };
  }
}

/** Writes the file a case describes. */
export async function writeCase(file: FileCase): Promise<Uint8Array> {
  const b = new PdfBuilder();
  const icc = iccProfiles();
  const iccRgb = b.add(streamObject('/N 3 /Filter /FlateDecode', deflateSync(icc.rgb)));
  const iccCmyk = b.add(streamObject('/N 4 /Filter /FlateDecode', deflateSync(icc.cmyk)));
  const sepFn = b.add('<< /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 [0.9 0.1 0.6 0.05] /N 1 >>');
  const devnFn = b.add(streamObject('/FunctionType 4 /Domain [0 1 0 1] /Range [0 1 0 1 0 1 0 1]', '{ 0 0 4 -1 roll }'));
  const spaces: Record<Space, string> = {
    rgb: '/DeviceRGB',
    gray: '/DeviceGray',
    cmyk: '/DeviceCMYK',
    'icc-rgb': `[/ICCBased ${iccRgb}]`,
    'icc-cmyk': `[/ICCBased ${iccCmyk}]`,
    indexed: '[/Indexed /DeviceCMYK 3 <00000000ff000000ffff000020a0ff00>]',
    separation: `[/Separation /Spot /DeviceCMYK ${sepFn}]`,
    devicen: `[/DeviceN [/Cyan /Magenta] /DeviceCMYK ${devnFn}]`,
  };
  for (const page of file.pages) {
    const [wPt, hPt] = shownSizePt(page);
    const turned = page.rotate % 180 !== 0;
    // The MediaBox as the file holds it: before /Rotate, in user units.
    const mw = (turned ? hPt : wPt) / page.userUnit;
    const mh = (turned ? wPt : hPt) / page.userUnit;
    const [x0, y0] = page.origin;
    const ops: string[] = [];
    const m = page.cropMargin;
    // Outside the CropBox: a frame a viewer never shows (nor may the fixed page).
    if (m)
      ops.push(
        `q 0 0.6 0 rg ${n(x0 - m)} ${n(y0 - m)} ${n(mw + 2 * m)} ${n(m)} re ${n(x0 - m)} ${n(y0 + mh)} ${n(mw + 2 * m)} ${n(m)} re ${n(x0 - m)} ${n(y0)} ${n(m)} ${n(mh)} re ${n(x0 + mw)} ${n(y0)} ${n(m)} ${n(mh)} re f Q`,
      );
    const xobjects: string[] = [];
    const colourSpaces = Object.entries(spaces)
      .map(([k, v]) => `/${k} ${v}`)
      .join(' ');
    for (const p of page.paints) {
      // Four cells in a 2 × 2 grid, each painted inset so that shapes stay apart.
      const cx = x0 + (p.cell % 2) * (mw / 2) + mw * 0.06;
      const cy = y0 + Math.floor(p.cell / 2) * (mh / 2) + mh * 0.06;
      const cw = mw * 0.38;
      const ch = mh * 0.38 * (p.cell === 3 ? 0.5 : 1);
      const parts: string[] = [];
      // Nesting: each level a q and a matrix, undone by the next level's, so the paint lands where the cell says.
      for (let k = 0; k < p.nesting; k++) parts.push(`q ${k % 2 ? '1 0 0 1 5 7' : '2 0 0 0.5 0 0'} cm ${k % 2 ? '1 0 0 1 -5 -7' : '0.5 0 0 2 0 0'} cm`);
      if (p.kind === 'rect') {
        const c = components(p.space);
        const values = p.colour.slice(0, c).map(n).join(' ');
        if (p.space === 'rgb') parts.push(`${values} rg`);
        else if (p.space === 'gray') parts.push(`${values} g`);
        else if (p.space === 'cmyk') parts.push(`${values} k`);
        else {
          const set = `${p.space === 'indexed' ? String(Math.round(p.colour[0]! * 3)) : values} ${p.space === 'separation' || p.space === 'devicen' ? 'scn' : 'sc'}`;
          parts.push(`/${p.space} cs ${set}`);
          if (p.reSet) parts.push(`q /rgb cs 1 0 0 sc Q ${set}`);
        }
        parts.push(`${n(cx)} ${n(cy)} ${n(cw)} ${n(ch)} re f`);
      } else {
        const samples = imageSamples(p);
        const enc = await encodeImage(p, samples);
        const ref = b.add(
          streamObject(
            `/Type /XObject /Subtype /Image /Width ${p.pixels} /Height ${p.pixels} /BitsPerComponent 8 /ColorSpace ${spaces[p.space]} ${enc.filter} ${enc.parms} ${enc.decode ?? ''}`,
            enc.data,
          ),
        );
        xobjects.push(`/Im${p.cell} ${ref}`);
        parts.push(`${n(cw)} 0 0 ${n(ch)} ${n(cx)} ${n(cy)} cm /Im${p.cell} Do`);
      }
      for (let k = 0; k < p.nesting; k++) parts.push('Q');
      ops.push(`q ${parts.join(' ')} Q`);
    }
    const contents = splitAtOperators(ops.join('\n'), page.streams).map((c) => b.add(streamObject('/Filter /FlateDecode', deflateSync(Buffer.from(c, 'latin1')))));
    b.page(
      [
        m
          ? `/MediaBox [${n(x0 - m)} ${n(y0 - m)} ${n(x0 + mw + m)} ${n(y0 + mh + m)}] /CropBox [${n(x0)} ${n(y0)} ${n(x0 + mw)} ${n(y0 + mh)}]`
          : `/MediaBox [${n(x0)} ${n(y0)} ${n(x0 + mw)} ${n(y0 + mh)}]`,
        page.rotate ? `/Rotate ${page.rotate}` : '',
        page.userUnit !== 1 ? `/UserUnit ${page.userUnit}` : '',
        `/Contents [${contents.join(' ')}]`,
        `/Resources << /ColorSpace << ${colourSpaces} >> /XObject << ${xobjects.join(' ')} >> >>`,
      ].join(' '),
    );
  }
  return b.bytes();
}

/** Splits content into `parts` streams, each cut just after an operator (the streams join with whitespace, §7.8.2). */
function splitAtOperators(content: string, parts: number): string[] {
  const words = content.split(/\s+/);
  const isOperator = (w: string) => /^[A-Za-z'"*]+$/.test(w);
  const out: string[] = [];
  let current: string[] = [];
  const target = Math.ceil(words.length / parts);
  for (const w of words) {
    current.push(w);
    if (current.length >= target && isOperator(w) && out.length < parts - 1) {
      out.push(current.join(' '));
      current = [];
    }
  }
  out.push(current.join(' '));
  return out.filter((s) => s.length > 0);
}

/** The product every generated file is for: its layers are LAYERS_MM, in that order. */
export function testProfile(pages: number) {
  return {
    id: `prop-${pages}`,
    name: `Property test product with ${pages} layers`,
    version: '1.0.0',
    layers: LAYERS_MM.slice(0, pages).map((_, i) => ({ id: `l${i + 1}`, name: `Layer ${i + 1}`, safeMarginMm: 0 })),
    limits: { bleedMm: 0, toleranceMm: 1, scaleTolerance: 0.01, minPpi: 1, minPpiError: 1, productionPpi: 72, maxImagePixels: 100, maxFileBytes: 50_000_000, boxEpsilonMm: 0.1 },
    severities: {},
    policy: { 'page-order-mismatch': 'fix', 'page-rotate-set': 'fix', 'page-scale-mismatch': 'fix', 'colour-space-not-rgb': 'fix', 'image-too-large': 'fix' },
    approval: [],
    variants: [{ id: 'only', skus: [`PROP-${pages}`], trim: Object.fromEntries(LAYERS_MM.slice(0, pages).map(([w, h], i) => [`l${i + 1}`, { widthMm: w, heightMm: h }])) }],
  };
}
