/**
 * Assembles a compliant print file from one image (PNG, JPEG, TIFF, WebP) or one-page PDF per
 * layer: every page exactly the layer's size, the image fitted (cover, contain on a background
 * colour, or stretch), colour-managed to sRGB (embedded ICC profiles honoured, CMYK converted
 * through lcms, alpha flattened), resampled to the production resolution capped at the pixel
 * limit (never upsampled unless asked), JPEG at a chosen quality or lossless, and kept under the
 * file-size cap by recompressing when needed. The output is checked before it is returned.
 */
import { formatBytes } from '../report/format.js';
import { readFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { PDFDocument, loadDocument, pushGraphicsState, popGraphicsState, concatTransformationMatrix, drawObject } from '../pdf/pdf-lib-document.js';
import { PDFArray, PDFName, PDFNumber, PDFRawStream } from '../pdf/pdf-lib.js';
import { z } from 'zod';
import { InputUnreadableError, InvalidArgumentError } from '../errors.js';
import type { PreflightOptions, Target } from '../options.js';
import { mmToPt, mmToPx } from '../pdf/units.js';
import { decodeLimitsOf, preflight } from '../flow/preflight.js';
import { BudgetExceededError, type DecodeLimits } from '../pdf/decode-budget.js';
import { decodeStream, StreamDecodeError, StreamTooLargeError } from '../pdf/streams.js';
import { formatPath, registryFrom } from '../profile/load.js';
import type { Report } from '../report/schema.js';
import { fitInto } from './geometry.js';

export const AssembleOptionsSchema = z
  .object({
    fit: z.enum(['contain', 'cover', 'stretch']).default('cover'),
    /** Background for `contain` and for transparent images, CSS colour. */
    background: z.string().default('#ffffff'),
    /** JPEG quality; ignored with `lossless`. */
    jpegQuality: z.number().int().min(30).max(100).default(90),
    lossless: z.boolean().default(false),
    /** Resample up to the production resolution even when the image has fewer pixels. */
    upsample: z.boolean().default(false),
  })
  .strict();
export type AssembleOptions = z.input<typeof AssembleOptionsSchema>;

/** An input for one layer: by position, or named (`{ layer: 'front', input }`). */
export type LayerInput = string | Uint8Array | { layer: string; input: string | Uint8Array };

export interface AssembleResult {
  bytes: Uint8Array;
  /** What was done, layer by layer, and any recompression. */
  changes: string[];
  report: Report;
}

/**
 * @example
 * const { bytes, report } = await assemble({ sku: 'T-SHIRT-M' }, ['front.png', 'back.png', 'left.jpg', 'right.jpg']);
 * await writeFile('order.pdf', bytes);
 */
export async function assemble(target: Target, inputs: readonly LayerInput[], options: AssembleOptions = {}, preflightOptions: PreflightOptions = {}): Promise<AssembleResult> {
  const parsed = AssembleOptionsSchema.safeParse(options);
  if (!parsed.success) throw new InvalidArgumentError(`Invalid assemble options: ${parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  const opts = parsed.data;
  const registry = await registryFrom(preflightOptions.profiles);
  const resolved = registry.resolve(target);
  const limits = { ...resolved.limits, ...preflightOptions.limits };
  // Inputs by layer: named ones where named, the rest in order.
  const byLayer = new Map<string, string | Uint8Array>();
  const positional = inputs.filter((i): i is string | Uint8Array => typeof i === 'string' || i instanceof Uint8Array);
  for (const i of inputs) {
    if (typeof i === 'object' && !(i instanceof Uint8Array)) {
      if (!resolved.layers.some((l) => l.id === i.layer)) throw new InvalidArgumentError(`${resolved.profile.id} has no layer "${i.layer}"; its layers: ${resolved.layers.map((l) => l.id).join(', ')}`);
      byLayer.set(i.layer, i.input);
    }
  }
  for (const layer of resolved.layers) if (!byLayer.has(layer.id) && positional.length) byLayer.set(layer.id, positional.shift()!);
  const missing = resolved.layers.filter((l) => !byLayer.has(l.id)).map((l) => l.id);
  if (missing.length || positional.length) {
    throw new InvalidArgumentError(
      missing.length
        ? `${resolved.profile.id} ${resolved.variant.id} needs one file per layer (${resolved.layers.map((l) => l.id).join(', ')}); missing: ${missing.join(', ')}`
        : `${positional.length} file(s) more than ${resolved.profile.id}'s ${resolved.layers.length} layers`,
    );
  }

  const encoded = new Map<string, Encoded>();
  const changes: string[] = [];
  for (const layer of resolved.layers) {
    const input = await load(byLayer.get(layer.id)!);
    encoded.set(layer.id, await prepare(input, layer.pageWidthMm, layer.pageHeightMm, limits.productionPpi, limits.maxImagePixels, opts));
    changes.push(`${layer.id}: ${encoded.get(layer.id)!.note}`);
  }
  const decodeLimits = decodeLimitsOf(preflightOptions.pool, preflightOptions.decodeLimits);
  let bytes = await build(resolved.layers, encoded, opts, decodeLimits);
  // Keep the file under the cap: lower the JPEG quality step by step.
  for (let quality = Math.min(opts.jpegQuality, 85) - 5; bytes.length > limits.maxFileBytes && quality >= 50; quality -= 10) {
    for (const [id, e] of encoded) if (e.kind === 'image' && e.raw) encoded.set(id, { ...e, ...(await encodeRaster(e.raw, e.widthPx, e.heightPx, { ...opts, lossless: false, jpegQuality: quality })) });
    bytes = await build(resolved.layers, encoded, opts, decodeLimits);
    changes.push(`recompressed at JPEG quality ${quality} to stay under ${size(limits.maxFileBytes)}: ${size(bytes.length)}`);
  }
  // Still too big: fewer pixels (the resolution drops, and the check will say so).
  for (let step = 1; bytes.length > limits.maxFileBytes && step <= 4; step++) {
    for (const [id, e] of encoded) {
      if (e.kind !== 'image' || !e.raw) continue;
      const w = Math.max(1, Math.round(e.widthPx * 0.8));
      const h = Math.max(1, Math.round(e.heightPx * 0.8));
      const raw = new Uint8Array(await sharp(e.raw, { raw: { width: e.widthPx, height: e.heightPx, channels: 3 } }).resize(w, h, { fit: 'fill' }).raw().toBuffer());
      encoded.set(id, { ...e, raw, widthPx: w, heightPx: h, ...(await encodeRaster(raw, w, h, { lossless: false, jpegQuality: 50 })) });
    }
    bytes = await build(resolved.layers, encoded, opts, decodeLimits);
    changes.push(`downsampled the images to ${Math.round(0.8 ** step * 100)} % to stay under ${size(limits.maxFileBytes)}: ${size(bytes.length)}`);
  }
  if (bytes.length > limits.maxFileBytes) changes.push(`could not get under ${size(limits.maxFileBytes)}: ${size(bytes.length)} (the check reports file-too-large)`);
  const report = await preflight(bytes, target, { path: null, ...preflightOptions });
  return { bytes, changes, report };
}

type Encoded =
  | { kind: 'image'; data: Uint8Array; filter: 'DCTDecode' | 'FlateDecode'; widthPx: number; heightPx: number; raw?: Uint8Array; note: string }
  | { kind: 'pdf'; bytes: Uint8Array; note: string };

async function load(input: string | Uint8Array): Promise<Uint8Array> {
  if (input instanceof Uint8Array) return input;
  try {
    return new Uint8Array(await readFile(input));
  } catch (cause) {
    throw new InputUnreadableError(`Cannot read ${input} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
}

async function prepare(input: Uint8Array, wMm: number, hMm: number, ppi: number, maxPx: number, opts: z.output<typeof AssembleOptionsSchema>): Promise<Encoded> {
  if (Buffer.from(input.subarray(0, 1024)).toString('latin1').includes('%PDF-')) {
    return { kind: 'pdf', bytes: input, note: `one-page PDF placed as vector content (${opts.fit})` };
  }
  let meta;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new InvalidArgumentError(`Expected a PNG, JPEG, TIFF, WebP or PDF file for a layer, but it cannot be read (${(error as Error).message})`);
  }
  // Pixels needed at the production resolution, capped at the pixel limit.
  let tw = Math.round(mmToPx(wMm, ppi));
  let th = Math.round(mmToPx(hMm, ppi));
  const cap = maxPx / Math.max(tw, th);
  if (cap < 1) {
    tw = Math.floor(tw * cap);
    th = Math.floor(th * cap);
  }
  const upright = (meta.orientation ?? 1) >= 5;
  const sw = upright ? meta.height! : meta.width!;
  const sh = upright ? meta.width! : meta.height!;
  const scale = opts.fit === 'contain' ? Math.min(tw / sw, th / sh) : Math.max(tw / sw, th / sh);
  if (scale > 1 && !opts.upsample) {
    tw = Math.max(1, Math.round(tw / scale));
    th = Math.max(1, Math.round(th / scale));
  }
  const pipeline = sharp(input, { limitInputPixels: false, failOn: 'none' })
    .rotate() // EXIF orientation
    .flatten({ background: opts.background })
    .resize(tw, th, { fit: opts.fit === 'stretch' ? 'fill' : opts.fit, background: opts.background, kernel: 'lanczos3' })
    .toColourspace('srgb');
  const raw = await pipeline.removeAlpha().raw().toBuffer();
  const encoded = await encodeRaster(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), tw, th, opts);
  const eff = Math.min(tw / (wMm / 25.4), th / (hMm / 25.4));
  const source = `${meta.format ?? 'image'} ${meta.width} × ${meta.height} px${meta.space && meta.space !== 'srgb' ? `, ${meta.space}` : ''}${meta.icc ? ' with ICC profile' : ''}${meta.depth && meta.depth !== 'uchar' ? `, ${meta.depth}` : ''}${meta.hasAlpha ? ', alpha' : ''}`;
  return {
    kind: 'image',
    ...encoded,
    widthPx: tw,
    heightPx: th,
    raw: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength),
    note: `${source} → ${tw} × ${th} px sRGB (${Math.round(eff)} ppi, ${opts.fit}, ${encoded.filter === 'DCTDecode' ? `JPEG q${opts.jpegQuality}` : 'lossless'})`,
  };
}

async function encodeRaster(raw: Uint8Array, w: number, h: number, opts: { lossless: boolean; jpegQuality: number }) {
  if (opts.lossless) return { data: new Uint8Array(deflateSync(raw, { level: 6 })), filter: 'FlateDecode' as const };
  const jpeg = await sharp(raw, { raw: { width: w, height: h, channels: 3 }, limitInputPixels: false }).jpeg({ quality: opts.jpegQuality, chromaSubsampling: '4:4:4' }).toBuffer();
  return { data: new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength), filter: 'DCTDecode' as const };
}

/**
 * A layer's one-page PDF, ready to embed: parsed under the decode budget, and its page content
 * decoded under it once — pdf-lib's embedder decodes the content again with its own filters, which
 * have no limit, so a bomb behind LZW or RunLength must stop here first. A layer over the budget,
 * or whose content cannot be decoded, is refused (InvalidArgumentError), never a crash or a hang.
 */
async function layerPdf(bytes: Uint8Array, id: string, limits: DecodeLimits): Promise<PDFDocument> {
  try {
    const { doc, budget } = await loadDocument(bytes, limits, { ignoreEncryption: true });
    if (doc.getPageCount() !== 1) throw new InvalidArgumentError(`the PDF for layer ${id} has ${doc.getPageCount()} pages; give one page per layer`);
    const contents = doc.getPage(0).node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((c) => doc.context.lookup(c)) : [contents];
    for (const stream of streams) {
      if (stream instanceof PDFRawStream) decodeStream(doc.context, stream, { maxBytes: limits.maxFileDecodedBytes, budget, what: `the page content of layer ${id}` });
    }
    return doc;
  } catch (error) {
    if (error instanceof BudgetExceededError || error instanceof StreamTooLargeError) throw new InvalidArgumentError(`the PDF for layer ${id} is too complex to place: ${error.message}`);
    if (error instanceof StreamDecodeError) throw new InvalidArgumentError(`the PDF for layer ${id} cannot be placed: its page content cannot be decoded (${error.message})`);
    throw error;
  }
}

async function build(
  layers: readonly { id: string; pageWidthMm: number; pageHeightMm: number }[],
  encoded: Map<string, Encoded>,
  opts: z.output<typeof AssembleOptionsSchema>,
  decodeLimits: DecodeLimits,
): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer('print-preflight');
  for (const layer of layers) {
    const W = mmToPt(layer.pageWidthMm);
    const H = mmToPt(layer.pageHeightMm);
    const page = doc.addPage([W, H]);
    const e = encoded.get(layer.id)!;
    if (e.kind === 'pdf') {
      const source = await layerPdf(e.bytes, layer.id, decodeLimits);
      const [embedded] = await doc.embedPdf(source, [0]);
      const m = fitInto(embedded!.width, embedded!.height, W, H, opts.fit);
      if (opts.fit !== 'cover') page.drawRectangle({ x: 0, y: 0, width: W, height: H, color: hexColour(opts.background) });
      page.drawPage(embedded!, { x: m[4], y: m[5], xScale: m[0], yScale: m[3] });
      continue;
    }
    const dict = doc.context.obj({ Type: 'XObject', Subtype: 'Image', Width: e.widthPx, Height: e.heightPx, BitsPerComponent: 8, ColorSpace: 'DeviceRGB', Filter: e.filter });
    dict.set(PDFName.of('Length'), PDFNumber.of(e.data.length));
    const ref = doc.context.register(PDFRawStream.of(dict, e.data));
    page.node.setXObject(PDFName.of('Im0'), ref);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(W, 0, 0, H, 0, 0), drawObject('Im0'), popGraphicsState());
  }
  return doc.save({ useObjectStreams: true });
}

const size = formatBytes;

function hexColour(css: string) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css.trim());
  const [r, g, b] = m ? [m[1], m[2], m[3]].map((h) => parseInt(h!, 16) / 255) : [1, 1, 1];
  return { type: 'RGB', red: r!, green: g!, blue: b! } as never;
}
