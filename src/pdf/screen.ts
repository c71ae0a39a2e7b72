/**
 * What a renderer (pdf.js, PDFium) will be given, sized from the file's structure before it sees
 * it. A renderer decodes font programs, ICC profiles, function and shading streams and JBIG2
 * globals whole, allocates a sampled function's table and a CCITT decoder's rows from what their
 * dictionaries declare, and works through every vertex of a mesh shading — with no budget of ours
 * in force. Each such input is measured here once per file, under the file's decode budget: what
 * would not fit is a reason to keep the page from the renderer (a `pdf-too-complex` finding in
 * seconds, instead of a worker busy for a minute or out of memory).
 */
import { patchMeshPieces } from './mesh-cost.js';
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import { N, PDFArray, PDFRawStream, dictOf, get, getDict, getName, getNumber, items, nameOf, numberOf, resolve } from './objects.js';
import { StreamDecodeError, StreamTooLargeError, type StreamReader } from './streams.js';
import { formatBytes } from './decode-budget.js';
import { grouped } from '../util/text.js';
import { jbig2Claims, type Jbig2Claims } from './jbig2.js';
import { DEFAULT_JPEG_SCAN_LIMITS, jpegScanReason, type JpegScanLimits } from './jpeg-scans.js';

export interface ScreenLimits extends JpegScanLimits {
  /** Largest decoded size of a stream a renderer decodes whole: a font program, ICC profile, shading's data, JBIG2 globals. */
  maxRendererStreamBytes: number;
  /** Largest PostScript calculator (Type 4) function program, decoded. */
  maxCalculatorBytes: number;
  /** Most samples of a sampled (Type 0) function: its /Size entries multiplied, times its outputs. */
  maxFunctionSamples: number;
  /** Most colorants of one DeviceN colour space (PDF's own limit is 32). */
  maxColorants: number;
  /**
   * Most pixels of the bitmaps one JBIG2 image's segments make a decoder decode, all together
   * (pages, regions, pattern dictionaries, halftone grids: jbig2.ts). An A4 page scanned at 600
   * dpi and coded as one generic region is about 70 million.
   */
  maxJbig2Pixels: number;
  /** Most symbols the symbol dictionaries of one JBIG2 image declare (a decoder decodes each). */
  maxJbig2Symbols: number;
  /** Most symbol instances the text regions of one JBIG2 image declare (a decoder decodes and draws each). */
  maxJbig2Instances: number;
}

export const DEFAULT_SCREEN_LIMITS: ScreenLimits = {
  maxRendererStreamBytes: 64 * 1024 * 1024,
  maxCalculatorBytes: 1024 * 1024,
  maxFunctionSamples: 4_000_000,
  maxColorants: 256,
  maxJbig2Pixels: 96_000_000,
  maxJbig2Symbols: 200_000,
  maxJbig2Instances: 1_000_000,
  ...DEFAULT_JPEG_SCAN_LIMITS,
};

/** A shading's cost for a renderer: mesh elements (vertices of triangle meshes; the pieces a renderer cuts patches into, mesh-cost.ts). */
export interface ShadingCost {
  reason: string | null;
  meshElements: number;
}

/** Deepest nesting of functions (stitching functions of stitching functions…) followed. */
const MAX_FUNCTION_DEPTH = 8;

export class RendererScreen {
  private readonly streams = new Map<PDFObject, string | null>();
  private readonly functions = new Map<PDFObject, string | null>();
  private readonly shadings = new Map<PDFObject, ShadingCost>();
  private readonly spaces = new Map<PDFObject, string | null>();
  private readonly jbig2s = new Map<PDFObject, { claims: Jbig2Claims | null; reason: string | null }>();
  private readonly jpegs = new Map<PDFObject, string | null>();
  private readonly steps = new Map<PDFObject, number>();

  constructor(
    private readonly context: PDFContext,
    /** The file's stream reader (decrypting, charging the file's budget). */
    private readonly readStream: StreamReader,
    readonly limits: ScreenLimits = DEFAULT_SCREEN_LIMITS,
  ) {}

  /** A stream a renderer decodes whole: null when its decoded size is within `max`, else why not. */
  stream(obj: PDFObject | undefined, what: string, max = this.limits.maxRendererStreamBytes): string | null {
    const stream = resolve(this.context, obj);
    if (!(stream instanceof PDFRawStream)) return null;
    const known = this.streams.get(stream);
    if (known !== undefined) return known;
    let reason: string | null = null;
    try {
      this.readStream(stream, { maxBytes: max, untilImageFilter: true, what });
    } catch (error) {
      if (error instanceof StreamTooLargeError) reason = `${what} decodes to more than ${formatBytes(max)}${error.why === 'filter-chain' ? ` (${error.message})` : ''}`;
      else if (!(error instanceof StreamDecodeError)) throw error;
      // Undecodable data: the renderer fails on it by itself, quickly; not this screen's concern.
    }
    this.streams.set(stream, reason);
    return reason;
  }

  /**
   * A JBIG2 image (its own data and its /JBIG2Globals, each decoded through the filters before
   * JBIG2Decode, whole, within the renderer stream limit): what its segments declare (jbig2.ts),
   * and why a decoder must not be given it, or null. Once per stream.
   */
  jbig2(image: PDFRawStream, globals: PDFObject | undefined): { claims: Jbig2Claims | null; reason: string | null } {
    const known = this.jbig2s.get(image);
    if (known) return known;
    const limits = this.limits;
    let reason: string | null = null;
    const chunks: Uint8Array[] = [];
    for (const [obj, what] of [
      [resolve(this.context, globals), 'a JBIG2 image’s /JBIG2Globals'],
      [image, 'a JBIG2 image'],
    ] as const) {
      if (reason || !(obj instanceof PDFRawStream)) continue;
      try {
        chunks.push(this.readStream(obj, { maxBytes: limits.maxRendererStreamBytes, untilImageFilter: true, what }));
      } catch (error) {
        if (error instanceof StreamTooLargeError) reason = `${what} decodes to more than ${formatBytes(limits.maxRendererStreamBytes)}${error.why === 'filter-chain' ? ` (${error.message})` : ''}`;
        else if (!(error instanceof StreamDecodeError)) throw error;
      }
    }
    let claims: Jbig2Claims | null = null;
    if (!reason && chunks.length) {
      claims = jbig2Claims(chunks);
      if (claims.pixels > limits.maxJbig2Pixels)
        reason = `a JBIG2 image’s segments declare bitmaps of ${grouped(claims.pixels)} pixels together (a decoder decodes each; more than ${grouped(limits.maxJbig2Pixels)})`;
      else if (claims.symbols > limits.maxJbig2Symbols) reason = `a JBIG2 image’s symbol dictionaries declare ${grouped(claims.symbols)} symbols (more than ${grouped(limits.maxJbig2Symbols)})`;
      else if (claims.instances > limits.maxJbig2Instances)
        reason = `a JBIG2 image’s text regions declare ${grouped(claims.instances)} symbol instances (more than ${grouped(limits.maxJbig2Instances)})`;
    }
    const result = { claims, reason };
    this.jbig2s.set(image, result);
    return result;
  }

  /**
   * A JPEG image (its data decoded through the filters before DCTDecode, within the renderer stream
   * limit): why a decoder must not be given it — more scans, or scans × pixels, than the limits
   * (jpeg-scans.ts) — or null. Once per stream.
   */
  jpeg(image: PDFRawStream, pixels: number): string | null {
    const known = this.jpegs.get(image);
    if (known !== undefined) return known;
    let reason: string | null = null;
    try {
      const data = this.readStream(image, { maxBytes: this.limits.maxRendererStreamBytes, untilImageFilter: true, what: 'a JPEG image' });
      reason = jpegScanReason(data, pixels, this.limits);
    } catch (error) {
      if (error instanceof StreamTooLargeError) reason = `a JPEG image decodes to more than ${formatBytes(this.limits.maxRendererStreamBytes)}`;
      else if (!(error instanceof StreamDecodeError)) throw error;
    }
    this.jpegs.set(image, reason);
    return reason;
  }

  /**
   * Steps a renderer takes to evaluate a function once: a calculator (Type 4) program's tokens, a
   * stitching function's own step and its dearest part, one for the others (an array: its parts
   * together). PDFium evaluates a function-based shading's function at every pixel, and a DeviceN
   * tint transform at every pixel of an image.
   */
  evaluationSteps(obj: PDFObject | undefined, depth = 0): number {
    const ctx = this.context;
    const fn = resolve(ctx, obj);
    if (!fn || depth > MAX_FUNCTION_DEPTH) return 0;
    const known = this.steps.get(fn);
    if (known !== undefined) return known;
    let steps = 1;
    if (fn instanceof PDFArray) {
      steps = 0;
      for (const part of items(ctx, fn).slice(0, 64)) steps += this.evaluationSteps(part, depth + 1);
    } else {
      const dict = dictOf(fn);
      const type = getNumber(ctx, dict, 'FunctionType');
      if (type === 4 && fn instanceof PDFRawStream && !this.func(fn, 'a calculator function')) {
        try {
          steps = Math.max(1, countTokens(this.readStream(fn, { maxBytes: this.limits.maxCalculatorBytes, what: 'a calculator function' })));
        } catch (error) {
          if (!(error instanceof StreamDecodeError)) throw error;
        }
      } else if (type === 3) {
        const parts = get(ctx, dict, 'Functions');
        let dearest = 0;
        for (const part of parts instanceof PDFArray ? items(ctx, parts).slice(0, 64) : []) dearest = Math.max(dearest, this.evaluationSteps(part, depth + 1));
        steps = 1 + dearest;
      }
    }
    this.steps.set(fn, steps);
    return steps;
  }

  /**
   * Steps to convert one pixel of an image in this colour space: a DeviceN space's tint transform
   * (PDFium and pdf.js evaluate it per pixel; a Separation's single component is looked up in a
   * 256-entry table, and an Indexed space converts its palette only), else 0.
   */
  pixelSteps(obj: PDFObject | undefined): number {
    const cs = resolve(this.context, obj);
    if (!(cs instanceof PDFArray)) return 0;
    const parts = items(this.context, cs);
    if (nameOf(parts[0]) !== 'DeviceN') return 0;
    const names = parts[1];
    return names instanceof PDFArray && names.size() > 1 ? this.evaluationSteps(parts[3]) : 0;
  }

  /** A font's program (FontFile, FontFile2, FontFile3; a Type0 font's descendant's). */
  font(font: PDFDict, label: string): string | null {
    const ctx = this.context;
    let owner = font;
    if (getName(ctx, font, 'Subtype') === 'Type0') {
      const descendants = get(ctx, font, 'DescendantFonts');
      owner = (descendants instanceof PDFArray ? dictOf(items(ctx, descendants)[0]) : undefined) ?? font;
    }
    const descriptor = getDict(ctx, owner, 'FontDescriptor');
    for (const key of ['FontFile', 'FontFile2', 'FontFile3']) {
      const reason = this.stream(descriptor?.get(N(key)), `the program of font ${label}`);
      if (reason) return reason;
    }
    return null;
  }

  /**
   * A function (or array of functions) a renderer evaluates: a sampled one's table is allocated
   * from /Size, a calculator's program is parsed whole, a stitching one's parts are functions too.
   */
  func(obj: PDFObject | undefined, what: string, depth = 0): string | null {
    const ctx = this.context;
    const fn = resolve(ctx, obj);
    if (!fn) return null;
    if (depth > MAX_FUNCTION_DEPTH) return `${what} nests functions more than ${MAX_FUNCTION_DEPTH} deep`;
    const known = this.functions.get(fn);
    if (known !== undefined) return known;
    let reason: string | null = null;
    if (fn instanceof PDFArray) {
      for (const part of items(ctx, fn).slice(0, 64)) if ((reason = this.func(part, what, depth + 1))) break;
      if (!reason && fn.size() > 64) reason = `${what} is an array of ${fn.size()} functions`;
    } else {
      const dict = dictOf(fn);
      switch (getNumber(ctx, dict, 'FunctionType')) {
        case 0: {
          const size = get(ctx, dict, 'Size');
          const range = get(ctx, dict, 'Range');
          const outputs = range instanceof PDFArray ? Math.max(1, Math.floor(range.size() / 2)) : 1;
          let samples = outputs;
          for (const n of size instanceof PDFArray ? items(ctx, size) : []) samples *= Math.max(1, Math.trunc(numberOf(n) ?? 1));
          if (!(samples <= this.limits.maxFunctionSamples)) {
            reason = `${what} is a sampled function of ${grouped(samples)} samples (more than ${grouped(this.limits.maxFunctionSamples)})`;
          } else reason = this.stream(fn, `the samples of ${what}`);
          break;
        }
        case 4:
          reason = this.stream(fn, `the calculator program of ${what}`, this.limits.maxCalculatorBytes);
          break;
        case 3: {
          const parts = get(ctx, dict, 'Functions');
          reason = this.func(parts, what, depth + 1);
          break;
        }
        default:
          reason = null;
      }
    }
    this.functions.set(fn, reason);
    return reason;
  }

  /**
   * A colour space a renderer builds: its tint transform (Separation, DeviceN), ICC profile,
   * Indexed lookup table and base spaces; DeviceN with more colorants than a renderer should take.
   */
  colourSpace(obj: PDFObject | undefined, depth = 0): string | null {
    const ctx = this.context;
    const cs = resolve(ctx, obj);
    if (!(cs instanceof PDFArray) || depth > 8) return null;
    const known = this.spaces.get(cs);
    if (known !== undefined) return known;
    const parts = items(ctx, cs);
    let reason: string | null = null;
    switch (nameOf(parts[0])) {
      case 'ICCBased':
        reason = this.stream(parts[1], 'an ICC profile');
        if (!reason) reason = this.colourSpace(dictOf(parts[1])?.get(N('Alternate')), depth + 1);
        break;
      case 'Indexed':
      case 'I':
        reason = this.colourSpace(parts[1], depth + 1) ?? this.stream(parts[3], 'an Indexed colour table', 1024 * 1024);
        break;
      case 'Separation':
        reason = this.colourSpace(parts[2], depth + 1) ?? this.func(parts[3], 'a Separation colour’s tint transform');
        break;
      case 'DeviceN': {
        const names = parts[1];
        const n = names instanceof PDFArray ? names.size() : 0;
        if (n > this.limits.maxColorants) reason = `a DeviceN colour space has ${grouped(n)} colorants (more than ${this.limits.maxColorants})`;
        else reason = this.colourSpace(parts[2], depth + 1) ?? this.func(parts[3], 'a DeviceN colour’s tint transform');
        break;
      }
      case 'Pattern':
        reason = this.colourSpace(parts[1], depth + 1);
        break;
    }
    this.spaces.set(cs, reason);
    return reason;
  }

  /**
   * A shading: its functions and colour space, and for mesh shadings (types 4–7) how many
   * vertices or patches its data holds — read from the decoded data's length, without parsing it.
   */
  shading(obj: PDFObject | undefined, componentsOf: (cs: PDFObject | undefined) => number): ShadingCost {
    const ctx = this.context;
    const shading = resolve(ctx, obj);
    const dict = dictOf(shading);
    if (!shading || !dict) return { reason: null, meshElements: 0 };
    const known = this.shadings.get(shading);
    if (known) return known;
    const type = getNumber(ctx, dict, 'ShadingType') ?? 0;
    const fn = get(ctx, dict, 'Function');
    let reason = this.func(fn, 'a shading’s function') ?? this.colourSpace(get(ctx, dict, 'ColorSpace'));
    let meshElements = 0;
    if (!reason && type >= 4 && type <= 7 && shading instanceof PDFRawStream) {
      let data: Uint8Array | undefined;
      const max = this.limits.maxRendererStreamBytes;
      try {
        data = this.readStream(shading, { maxBytes: max, what: 'a mesh shading' });
      } catch (error) {
        if (error instanceof StreamTooLargeError) reason = `a mesh shading’s data decodes to more than ${formatBytes(max)}`;
        else if (!(error instanceof StreamDecodeError)) throw error;
      }
      if (data) {
        const bits = (key: string) => Math.max(0, Math.trunc(getNumber(ctx, dict, key) ?? 0));
        const colours = fn ? 1 : Math.max(1, componentsOf(get(ctx, dict, 'ColorSpace')));
        const point = 2 * bits('BitsPerCoordinate');
        const colour = colours * bits('BitsPerComponent');
        const flag = type === 5 ? 0 : bits('BitsPerFlag');
        // Types 4 and 5: one vertex per (byte-aligned) record. Types 6 and 7: the pieces a renderer
        // cuts the patches into, by each patch's share of the mesh (mesh-cost.ts).
        const record = flag + point + colour;
        const count = record > 0 ? Math.floor((data.length * 8) / Math.max(8, Math.ceil(record / 8) * 8)) : 0;
        meshElements =
          type <= 5
            ? count
            : patchMeshPieces(data, { type: type as 6 | 7, bitsPerFlag: flag, bitsPerCoordinate: bits('BitsPerCoordinate'), bitsPerComponent: bits('BitsPerComponent'), colourComponents: colours })
                .pieces;
      }
    }
    const cost = { reason, meshElements };
    this.shadings.set(shading, cost);
    return cost;
  }
}

/** Whitespace-separated tokens of a calculator program (its braces apart): the operators and operands it runs. */
function countTokens(data: Uint8Array): number {
  let tokens = 0;
  let inToken = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === 0x7b || c === 0x7d) {
      inToken = false;
      continue;
    }
    const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0;
    if (!space && !inToken) tokens++;
    inToken = !space;
  }
  return tokens;
}
