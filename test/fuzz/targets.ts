/**
 * Fuzz targets: one exported function per target, each taking the fuzzer's bytes and throwing only
 * when a bound or invariant is broken (a Jazzer.js finding). Expected refusals — our typed errors,
 * a spent decode budget, a stream that cannot be decoded — are caught here, target by target; any
 * other exception, a hang (the campaign's per-input time limit) or memory past the campaign's RSS
 * limit is a finding. The same functions replay the kept regression files in vitest
 * (regressions.test.ts), compiled by test/fuzz/tsconfig.json for the campaign (campaign.mjs).
 *
 * Targets: `structure` (the object parser, xref, page tree and everything inspectPdf reads),
 * `content` (the content lexer and interpreter, on a page with rich resources), `decoders` (the
 * stream filters and predictors under the budget), `fix` (fix and checkAndFix with every option on
 * a mutated file), `images` (rewriteImage), `vector` (VectorColourRewriter), `reorder`
 * (reorderPages) and `assemble` (assemble on mutated images).
 */
import { PreflightError } from '../../src/errors.js';
import { fix } from '../../src/flow/fix.js';
import { assemble } from '../../src/flow/assemble.js';
import { rewriteImage } from '../../src/convert/images.js';
import { VectorColourRewriter } from '../../src/convert/vector.js';
import { reorderPages } from '../../src/convert/reorder.js';
import { checkAndFix } from '../../src/flow/check-and-fix.js';
import { BudgetExceededError, DEFAULT_DECODE_LIMITS, DecodeBudget } from '../../src/pdf/decode-budget.js';
import type { DecodeLimits } from '../../src/pdf/decode-limits.js';
import { DocumentFactsSchema, type DocumentFacts } from '../../src/pdf/facts.js';
import { inspectPdf } from '../../src/pdf/inspect.js';
import { isName, isNum, lexContent, ContentSyntaxError } from '../../src/pdf/lexer.js';
import { ColourSpaceResolver } from '../../src/pdf/colour-space.js';
import type { PDFContext, PDFDict, PDFRef } from 'pdf-lib';
import { PDFName, PDFObjectParser, PDFRawStream } from '../../src/pdf/pdf-lib.js';
import { PDFDocument } from '../../src/pdf/pdf-lib-document.js';
import { decodeFilters, decodeStream, StreamDecodeError, type FilterParams } from '../../src/pdf/streams.js';
import { ReportSchema } from '../../src/report/schema.js';
import { PdfBuilder, streamObject } from '../helpers/pdf-build.js';

/** A broken bound or invariant: what the campaign reports and the replay test fails on. */
export class FuzzFinding extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FuzzFinding';
  }
}

/**
 * The limits the targets run under: the operator's defaults (the bounds the product states), with
 * the structure deadline lowered so that the read's own deadline fires well inside the campaign's
 * per-input time limit — a hang past it is then the code ignoring its deadline, not a slow input.
 */
export const FUZZ_LIMITS: DecodeLimits = { ...DEFAULT_DECODE_LIMITS, maxStructureMs: 10_000 };

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error));

/** Runs `fn`; an exception `allowed` accepts is an expected refusal (undefined), any other is a finding. */
async function bounded<T>(what: string, fn: () => Promise<T> | T, allowed: (error: unknown) => boolean): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof FuzzFinding) throw error;
    if (allowed(error)) return undefined;
    throw new FuzzFinding(`${what} threw ${describe(error)}`, { cause: error });
  }
}

const typed = (error: unknown) => error instanceof PreflightError;
const budgetOrDecode = (error: unknown) => error instanceof BudgetExceededError || error instanceof StreamDecodeError;

/** inspectPdf never throws: whatever the bytes, facts that pass the schema. */
async function inspectChecked(bytes: Uint8Array, what: string): Promise<DocumentFacts> {
  const facts = await bounded(
    what,
    () => inspectPdf(bytes, { limits: FUZZ_LIMITS }),
    () => false,
  );
  const parsed = DocumentFactsSchema.safeParse(facts);
  if (!parsed.success)
    throw new FuzzFinding(
      `${what}: facts fail their schema: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return facts!;
}

const FATAL_KINDS = new Set(['not-pdf', 'damaged', 'too-complex', 'timeout']);
const readable = (facts: DocumentFacts) => !facts.problems.some((p) => FATAL_KINDS.has(p.kind)) && !facts.encryption && (facts.pageCount ?? 0) > 0;

/** A little reader over the fuzzer's bytes, so one input picks options and carries data. */
export class Bytes {
  private at = 0;
  constructor(private readonly data: Uint8Array) {}
  byte(): number {
    return this.at < this.data.length ? this.data[this.at++]! : 0;
  }
  pick<T>(options: readonly T[]): T {
    return options[this.byte() % options.length]!;
  }
  u16(): number {
    return (this.byte() << 8) | this.byte();
  }
  take(n: number): Uint8Array {
    const out = this.data.subarray(this.at, Math.min(this.data.length, this.at + n));
    this.at += out.length;
    return out;
  }
  rest(): Uint8Array {
    return this.take(this.data.length);
  }
}

// ─── structure ──────────────────────────────────────────────────────────────────────────────────

/** The object parser, xref reader, page tree, fonts, content: everything a check reads of a file. */
export async function structure(data: Uint8Array): Promise<void> {
  await inspectChecked(new Uint8Array(data), 'inspectPdf');
}

// ─── content ────────────────────────────────────────────────────────────────────────────────────

const enc = new TextEncoder();

/**
 * A page whose content stream (and a form's, after a 0xFF byte in the input) is the fuzzer's,
 * with resources of every kind the interpreter follows: fonts (standard and Type 3), an image,
 * forms (one drawing itself), colour spaces, a pattern, a shading, graphics states, optional content.
 */
export function contentPage(content: Uint8Array, form: Uint8Array): Uint8Array {
  const b = new PdfBuilder();
  const image = b.add(streamObject('/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceCMYK /BitsPerComponent 8', new Uint8Array(16).fill(0x80)));
  const fn = b.add('<< /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 [0 1 0 0] /N 1 >>');
  const sep = `[/Separation /Spot /DeviceCMYK ${fn}]`;
  const oc = b.add('<< /Type /OCG /Name (Layer) >>');
  const glyph = b.add(streamObject('', '1000 0 0 0 750 750 d1 0 0 750 750 re f'));
  const t3 = b.add(
    `<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a ${glyph} >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] >>`,
  );
  const shading = b.add(`<< /ShadingType 2 /ColorSpace /DeviceCMYK /Coords [0 0 100 0] /Function << /FunctionType 2 /Domain [0 1] /C0 [1 0 0 0] /C1 [0 0 1 0] /N 1 >> >>`);
  const pattern = b.add(streamObject('/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 10 10] /XStep 10 /YStep 10 /Resources << >>', '0 0 1 0 k 0 0 5 5 re f'));
  const formRef = b.reserve();
  const formResources = `<< /XObject << /Im1 ${image} /Self ${formRef} >> /ColorSpace << /CS1 ${sep} >> >>`;
  b.set(formRef, streamObject(`/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources ${formResources}`, form));
  const resources = [
    `/Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> /T3 ${t3} >>`,
    `/XObject << /Im1 ${image} /Fm1 ${formRef} >>`,
    `/ColorSpace << /CS1 ${sep} /CS2 [/DeviceN [/Cyan /Spot] /DeviceCMYK ${fn}] /CS3 [/Indexed /DeviceRGB 1 <ff000000ff00>] /CS4 [/Pattern /DeviceCMYK] >>`,
    `/Pattern << /P1 ${pattern} >> /Shading << /Sh1 ${shading} >>`,
    `/ExtGState << /GS1 << /CA 0.5 /ca 0.5 /BM /Multiply >> >> /Properties << /OC1 ${oc} >>`,
  ].join(' ');
  b.page(`/MediaBox [0 0 400 400] /Contents ${b.add(streamObject('', content))} /Resources << ${resources} >>`);
  b.catalogExtra = `/OCProperties << /OCGs [${oc}] /D << /OFF [${oc}] >> >>`;
  return b.bytes();
}

/** The content lexer on raw bytes, then the whole interpreter on a page built around them. */
export async function content(data: Uint8Array): Promise<void> {
  const split = data.indexOf(0xff);
  const page = split < 0 ? data : data.subarray(0, split);
  const form = split < 0 ? enc.encode('0 0 1 0 k 0 0 10 10 re f') : data.subarray(split + 1);
  await bounded(
    'lexContent',
    () =>
      lexContent(
        new Uint8Array(page),
        () => undefined,
        () => undefined,
        () => null,
      ),
    (e) => e instanceof ContentSyntaxError,
  );
  await inspectChecked(contentPage(page, form), 'inspectPdf of a generated page');
}

// ─── decoders ───────────────────────────────────────────────────────────────────────────────────

const FILTER_NAMES = ['FlateDecode', 'LZWDecode', 'RunLengthDecode', 'ASCII85Decode', 'ASCIIHexDecode', 'DCTDecode', 'CCITTFaxDecode', 'JBIG2Decode', 'JPXDecode', 'Crypt', 'Bogus'];

/**
 * The stream decoders: the first byte says how many filters (1–9, one past the default cap of 8), each
 * next byte which filter and, when odd, decode parameters from the bytes after it; the rest is the
 * data. Decoding ends with the bytes or a typed refusal (StreamDecodeError, BudgetExceededError),
 * never past `maxBytes`, never by another exception.
 */
export async function decoders(data: Uint8Array): Promise<void> {
  const r = new Bytes(data);
  const count = 1 + (r.byte() % 9);
  const filters: string[] = [];
  const params: (FilterParams | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    const f = r.byte();
    filters.push(FILTER_NAMES[f % FILTER_NAMES.length]!);
    params.push(
      f & 0x80
        ? {
            predictor: r.pick([1, 2, 10, 11, 12, 13, 14, 15, 99]),
            colors: 1 + (r.byte() % 64),
            bitsPerComponent: r.pick([1, 2, 4, 8, 16, 3]),
            columns: r.u16() || 1,
            earlyChange: r.byte() & 1,
          }
        : undefined,
    );
  }
  const maxBytes = 4 * 1024 * 1024;
  const budget = new DecodeBudget({ ...FUZZ_LIMITS, maxFileDecodedBytes: 16 * 1024 * 1024 });
  const out = await bounded('decodeFilters', () => decodeFilters(r.rest(), filters, params, { maxBytes, budget }), budgetOrDecode);
  if (out && out.length > maxBytes) throw new FuzzFinding(`decodeFilters returned ${out.length} bytes, past maxBytes ${maxBytes}`);
}

// ─── fix and checkAndFix ────────────────────────────────────────────────────────────────────────

const SKUS = ['T-SHIRT-M', 'TANKTOP-M', 'CURTAINS-140X260', 'DUVET-COVER-200X200'];

/**
 * fix with every option (rotate, fit, reorder, explicit pages) or checkAndFix, on a mutated file; the
 * input's last byte picks the product and the options. It resolves or throws one of our typed
 * errors; a file it writes parses, keeps the page count, and its report passes the schema.
 */
export async function fixFile(data: Uint8Array): Promise<void> {
  if (data.length < 2) return;
  const bytes = new Uint8Array(data.subarray(0, data.length - 1));
  const k = data[data.length - 1]!;
  const sku = SKUS[k % SKUS.length]!;
  const preflightOptions = { pool: false as const, raster: false, decodeLimits: FUZZ_LIMITS };
  let written: Uint8Array | null = null;
  let reportBefore: { pdf: { pageCount: number | null } } | null = null;
  if (k & 0x80) {
    const out = await bounded(
      'checkAndFix',
      () => checkAndFix(bytes, { sku }, { ...preflightOptions, fix: k & 0x40 ? 'approve' : 'auto', rotate: k & 4 ? 'cw' : 'ccw', fit: (['contain', 'cover', 'stretch'] as const)[(k >> 3) % 3] }),
      typed,
    );
    if (!out) return;
    if (!ReportSchema.safeParse(out.report).success) throw new FuzzFinding('checkAndFix: the report fails the report schema');
    written = out.fixed?.bytes ?? null;
    reportBefore = out.before;
  } else {
    const options = {
      rotate: k & 4 ? ('cw' as const) : ('ccw' as const),
      fit: (['contain', 'cover', 'stretch'] as const)[(k >> 3) % 3],
      reorder: (k & 0x20) !== 0,
      jpegQuality: k & 0x40 ? 30 : 92,
      approve: 'all' as const,
    };
    const out = await bounded('fix', () => fix(bytes, { sku }, options, preflightOptions), typed);
    if (!out) return;
    if (out.after && !ReportSchema.safeParse(out.after).success) throw new FuzzFinding('fix: the report after fails the report schema');
    written = out.bytes;
    reportBefore = out.before;
  }
  if (!written) return;
  const facts = await inspectChecked(written, 'inspectPdf of the fixed file');
  const bad = facts.problems.find((p) => p.kind === 'damaged' || p.kind === 'not-pdf');
  if (bad) throw new FuzzFinding(`the fixed file is ${bad.kind}: ${bad.detail}`);
  if (reportBefore.pdf.pageCount !== null && facts.pageCount !== reportBefore.pdf.pageCount) {
    throw new FuzzFinding(`the fixed file has ${facts.pageCount} pages, the original ${reportBefore.pdf.pageCount}`);
  }
}

// ─── images ─────────────────────────────────────────────────────────────────────────────────────

const IMAGE_SPACES = [
  '/DeviceRGB',
  '/DeviceCMYK',
  '/DeviceGray',
  'ICC3',
  'ICC4',
  '[/Indexed /DeviceRGB 3 <ff000000ff000000ffffffff>]',
  '[/Indexed /DeviceCMYK 1 <00000000ffffffff>]',
  'SEP',
  'DEVN',
  '/Lab',
  '[/CalRGB << /WhitePoint [0.95 1 1.09] >>]',
  '/Pattern',
];

/**
 * rewriteImage on one image XObject whose entries (size, bits, colour space, filters, decode
 * parameters, /Decode) come from the input and whose data is the rest. It returns changed or not,
 * with a reason, and never throws; what it writes is an 8-bit DeviceRGB image whose data decodes
 * to exactly width × height × 3 bytes (Flate) or a JPEG of that size.
 */
export async function images(data: Uint8Array): Promise<void> {
  const r = new Bytes(data);
  const width = 1 + (r.u16() % 512);
  const height = 1 + (r.u16() % 512);
  const bpc = r.pick([8, 8, 1, 2, 4, 16, 3]);
  const space = r.pick(IMAGE_SPACES);
  const filter = r.pick(['', '/FlateDecode', '/DCTDecode', '[/ASCII85Decode /DCTDecode]', '/RunLengthDecode', '/LZWDecode', '[/FlateDecode /FlateDecode]', '/JPXDecode']);
  const predictor = r.pick([0, 0, 2, 15, 12]);
  const decode = r.pick(['', '', '/Decode [1 0 1 0 1 0 1 0]', '/Decode [0 1]']);
  const toSrgb = (r.byte() & 1) === 0;
  const maxPx = r.pick([null, 64, 300]);
  const doc = await PDFDocument.create();
  const context = doc.context;
  const icc = (n: number) => context.register(context.flateStream(new Uint8Array(128), { N: n }));
  const fn = context.obj({ FunctionType: 2, Domain: [0, 1], C0: [0, 0, 0, 0], C1: [0, 1, 0.5, 0], N: 1 });
  const spaceObj =
    space === 'ICC3'
      ? context.obj([PDFName.of('ICCBased'), icc(3)])
      : space === 'ICC4'
        ? context.obj([PDFName.of('ICCBased'), icc(4)])
        : space === 'SEP'
          ? context.obj([PDFName.of('Separation'), PDFName.of('Spot'), PDFName.of('DeviceCMYK'), fn])
          : space === 'DEVN'
            ? context.obj([PDFName.of('DeviceN'), [PDFName.of('Cyan'), PDFName.of('Spot')], PDFName.of('DeviceCMYK'), fn])
            : null;
  const dictText = `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /BitsPerComponent ${bpc} ${filter ? `/Filter ${filter}` : ''} ${predictor ? `/DecodeParms << /Predictor ${predictor} /Colors 3 /Columns ${width} /BitsPerComponent ${bpc} >>` : ''} ${decode} >>`;
  const parsed = await parseDict(dictText);
  const dict = context.obj({}) as PDFDict;
  for (const [key, value] of parsed.entries()) dict.set(key, value);
  dict.set(PDFName.of('ColorSpace'), spaceObj ?? PDFName.of(space.replace(/^\//, '')));
  if (space.startsWith('[')) dict.set(PDFName.of('ColorSpace'), (await parseDict(`<< /CS ${space} >>`)).get(PDFName.of('CS'))!);
  const ref = context.register(PDFRawStream.of(dict, new Uint8Array(r.rest())));
  const budget = new DecodeBudget({ ...FUZZ_LIMITS, maxFileDecodedBytes: 64 * 1024 * 1024 });
  const colourSpaces = new ColourSpaceResolver(context, (s) => decodeStream(context, s, { maxBytes: 16 * 1024 * 1024, budget }));
  const result = await bounded(
    'rewriteImage',
    () => rewriteImage(context, ref, colourSpaces, { toSrgb, maxPx, jpegQuality: 80, budget }),
    () => false,
  );
  if (!result?.changed) return;
  await checkRgbImage(context, ref, maxPx);
}

/** Parses a dictionary written as text, through pdf-lib's own parser. */
async function parseDict(text: string): Promise<PDFDict> {
  const context = (await PDFDocument.create()).context;
  return PDFObjectParser.forBytes(enc.encode(text), context).parseObject() as PDFDict;
}

async function checkRgbImage(context: PDFContext, ref: PDFRef, maxPx: number | null) {
  const stream = context.lookup(ref);
  if (!(stream instanceof PDFRawStream)) throw new FuzzFinding('rewriteImage replaced the image by something that is not a stream');
  const get = (k: string) => stream.dict.get(PDFName.of(k))?.toString();
  const w = Number(get('Width'));
  const h = Number(get('Height'));
  if (get('ColorSpace') !== '/DeviceRGB' || get('BitsPerComponent') !== '8') throw new FuzzFinding(`rewriteImage wrote ${get('ColorSpace')} at ${get('BitsPerComponent')} bits`);
  if (maxPx !== null && Math.max(w, h) > maxPx) throw new FuzzFinding(`rewriteImage left ${w} × ${h} px over the cap of ${maxPx}`);
  if (get('Filter') === '/FlateDecode') {
    const pixels = decodeStream(context, stream, { maxBytes: 64 * 1024 * 1024 });
    if (pixels.length !== w * h * 3) throw new FuzzFinding(`rewriteImage wrote ${pixels.length} bytes of pixels for ${w} × ${h} RGB (${w * h * 3})`);
  } else {
    const sharp = (await import('sharp')).default;
    const meta = await sharp(stream.contents).metadata();
    if (meta.width !== w || meta.height !== h) throw new FuzzFinding(`rewriteImage wrote a ${meta.width} × ${meta.height} JPEG for a ${w} × ${h} image`);
  }
}

// ─── vector ─────────────────────────────────────────────────────────────────────────────────────

/**
 * VectorColourRewriter on the input as a content stream, with DeviceCMYK, ICC CMYK, Separation and
 * DeviceN spaces in its resources. The rewrite replaces colour operators one for one (the operator
 * count stays), and wherever the original's colour operands matched the colour space in force —
 * followed through q/Q — the rewritten one's match too: a conversion never leaves four CMYK values
 * in what is now an RGB space.
 */
export async function vector(data: Uint8Array): Promise<void> {
  const doc = await PDFDocument.create();
  const context = doc.context;
  const fn = context.obj({ FunctionType: 2, Domain: [0, 1], C0: [0, 0, 0, 0], C1: [0.1, 0.9, 0, 0.2], N: 1 });
  const resources = context.obj({
    ColorSpace: {
      CMYK: PDFName.of('DeviceCMYK'),
      RGB: PDFName.of('DeviceRGB'),
      Sep: [PDFName.of('Separation'), PDFName.of('Spot'), PDFName.of('DeviceCMYK'), fn],
      DevN: [PDFName.of('DeviceN'), [PDFName.of('Cyan'), PDFName.of('Spot')], PDFName.of('DeviceCMYK'), fn],
      SepRGB: [PDFName.of('Separation'), PDFName.of('Red'), PDFName.of('DeviceRGB'), context.obj({ FunctionType: 2, Domain: [0, 1], C0: [1, 1, 1], C1: [1, 0, 0], N: 1 })],
    },
  }) as PDFDict;
  const input = new Uint8Array(data);
  const rewriter = new VectorColourRewriter(context, new DecodeBudget(FUZZ_LIMITS));
  const out = await bounded(
    'VectorColourRewriter',
    async () => {
      rewriter.collect(input, resources);
      await rewriter.convertCollected();
      return rewriter.rewrite(input, resources);
    },
    (e) => e instanceof ContentSyntaxError || e instanceof BudgetExceededError,
  );
  if (!out?.changed) return;
  const components = new ColourSpaceResolver(context, () => new Uint8Array());
  const before = colourOperandCheck(input, resources, components);
  const after = colourOperandCheck(out.bytes, resources, components);
  if (before.operators !== after.operators) throw new FuzzFinding(`the rewrite has ${after.operators} operators, the original ${before.operators}`);
  for (const [index, what] of after.mismatches) {
    if (!before.mismatches.has(index)) throw new FuzzFinding(`after the rewrite, operator ${index + 1} ${what}; in the original its operands matched its colour space`);
  }
}

/** Follows fill and stroke colour spaces through q/Q and says which colour operators have the wrong number of operands. */
function colourOperandCheck(bytes: Uint8Array, resources: PDFDict, resolver: ColourSpaceResolver) {
  type State = { fill: number; stroke: number };
  let state: State = { fill: 1, stroke: 1 };
  const stack: State[] = [];
  const mismatches = new Map<number, string>();
  let operators = 0;
  const componentsOf = (name: string) => {
    if (name === 'DeviceRGB' || name === 'RGB') return 3;
    if (name === 'DeviceCMYK' || name === 'CMYK') return 4;
    if (name === 'DeviceGray' || name === 'G') return 1;
    if (name === 'Pattern') return 0;
    const obj = (resources.get(PDFName.of('ColorSpace')) as PDFDict | undefined)?.get(PDFName.of(name));
    return obj ? resolver.describe(obj, resources).components : -1;
  };
  try {
    lexContent(
      bytes,
      (op, args) => {
        const index = operators++;
        const nums = args.filter(isNum).length;
        switch (op) {
          case 'q':
            if (stack.length < 512) stack.push({ ...state });
            return;
          case 'Q':
            state = stack.pop() ?? state;
            return;
          case 'g':
          case 'rg':
          case 'k':
            state.fill = op === 'g' ? 1 : op === 'rg' ? 3 : 4;
            return;
          case 'G':
          case 'RG':
          case 'K':
            state.stroke = op === 'G' ? 1 : op === 'RG' ? 3 : 4;
            return;
          case 'cs':
          case 'CS': {
            const n = args[args.length - 1];
            const c = isName(n) ? componentsOf(n.name) : -1;
            if (op === 'cs') state.fill = c;
            else state.stroke = c;
            return;
          }
          case 'sc':
          case 'scn':
          case 'SC':
          case 'SCN': {
            const want = op.startsWith('s') ? state.fill : state.stroke;
            if (want > 0 && !isName(args[args.length - 1]) && nums !== want) mismatches.set(index, `${op} has ${nums} operands in a space of ${want} components`);
            return;
          }
          default:
        }
      },
      () => undefined,
      () => null,
    );
  } catch (error) {
    if (!(error instanceof ContentSyntaxError)) throw error;
  }
  return { operators, mismatches };
}

// ─── reorder ────────────────────────────────────────────────────────────────────────────────────

/**
 * reorderPages on a mutated file that the check reads as whole (the only files fix reorders), in
 * an order the input's last bytes pick: it writes a file of the same page count whose page i has
 * the size of original page order[i], or refuses with a spent budget or a typed error.
 */
export async function reorder(data: Uint8Array): Promise<void> {
  if (data.length < 2) return;
  const bytes = new Uint8Array(data.subarray(0, data.length - 1));
  const facts = await inspectChecked(bytes, 'inspectPdf');
  if (!readable(facts) || facts.pageCount! > 64) return;
  const n = facts.pageCount!;
  const order = Array.from({ length: n }, (_, i) => i + 1);
  let seed = data[data.length - 1]!;
  for (let i = n - 1; i > 0; i--) {
    seed = (seed * 73 + 41) & 0xff;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // A spent budget, or a page the check itself could not read (ERR_PDF_DAMAGED: a page-damaged file) is a refusal.
  const out = await bounded(
    'reorderPages',
    () => reorderPages(bytes, order, FUZZ_LIMITS),
    (e) => e instanceof BudgetExceededError || typed(e),
  );
  if (!out) return;
  const after = await inspectChecked(out, 'inspectPdf of the reordered file');
  if (after.pageCount !== n) throw new FuzzFinding(`reorderPages wrote ${after.pageCount} pages of ${n}`);
  order.forEach((from, i) => {
    const a = facts.pages[from - 1];
    const b = after.pages[i];
    if (a && b && (Math.abs(a.widthMm - b.widthMm) > 0.01 || Math.abs(a.heightMm - b.heightMm) > 0.01 || a.rotate !== b.rotate)) {
      throw new FuzzFinding(
        `page ${i + 1} of the reordered file is ${b.widthMm} × ${b.heightMm} mm /Rotate ${b.rotate}; original page ${from} was ${a.widthMm} × ${a.heightMm} mm /Rotate ${a.rotate}`,
      );
    }
  });
}

// ─── assemble ───────────────────────────────────────────────────────────────────────────────────

/** assemble on one mutated image per layer of a tank top (two layers): a checked file or a typed error. */
export async function assembleImages(data: Uint8Array): Promise<void> {
  if (data.length < 2) return;
  const k = data[data.length - 1]!;
  const image = new Uint8Array(data.subarray(0, data.length - 1));
  const out = await bounded(
    'assemble',
    () =>
      assemble(
        { sku: 'TANKTOP-M' },
        [image, image],
        { fit: (['contain', 'cover', 'stretch'] as const)[k % 3], lossless: (k & 4) !== 0, jpegQuality: 60 },
        { pool: false, raster: false, decodeLimits: FUZZ_LIMITS },
      ),
    typed,
  );
  if (!out) return;
  if (!ReportSchema.safeParse(out.report).success) throw new FuzzFinding('assemble: the report fails the report schema');
  const facts = await inspectChecked(out.bytes, 'inspectPdf of the assembled file');
  if (!readable(facts) || facts.pageCount !== 2) throw new FuzzFinding(`assemble wrote a file of ${facts.pageCount} pages with problems ${JSON.stringify(facts.problems)}`);
}

/** Every target by the name the campaign and the regression files use. */
export const TARGETS = { structure, content, decoders, fix: fixFile, images, vector, reorder, assemble: assembleImages } as const;
export type TargetName = keyof typeof TARGETS;
