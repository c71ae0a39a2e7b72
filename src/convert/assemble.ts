/**
 * The assembly transform: one image (PNG, JPEG, TIFF, WebP) or one-page PDF per layer becomes a page
 * of exactly the layer's size, the image fitted (cover, contain on a background colour, stretch,
 * tile — repeated at its stated resolution — or mirror — contain with the rest mirrored),
 * colour-managed to sRGB (embedded ICC profiles honoured, CMYK converted through lcms, alpha
 * flattened), resampled to the production resolution capped at the pixel limit (never upsampled
 * unless asked), JPEG at a chosen quality or lossless, and kept under the file-size cap by
 * recompressing when needed.
 *
 * Runs in a pool worker (flow/assemble.ts asks it, then checks the result). Each image goes
 * through libvips end to end — decode, orient, flatten, resize, convert, encode — in its
 * demand-driven strips and within a pixel limit: no layer is ever held as raw pixels here (a
 * lossless layer is a PNG whose IDAT data is the PDF's Flate stream, with the PNG predictor).
 */
import sharp, { type Sharp } from 'sharp';
import { jpegScanReason } from '../pdf/jpeg-scans.js';
import { PDFDocument, loadDocument, pushGraphicsState, popGraphicsState, concatTransformationMatrix, drawObject } from '../pdf/pdf-lib-document.js';
import { PDFArray, PDFName, PDFNumber, PDFRawStream, type PDFDict, type PDFPage } from '../pdf/pdf-lib.js';
import { mmToPt, mmToPx, formatBytes, formatNumber } from '../pdf/units.js';
import { BudgetExceededError } from '../pdf/decode-budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import { decodeStream, StreamDecodeError, StreamTooLargeError } from '../pdf/streams.js';
import { fitInto } from './geometry.js';
import { MAX_CONVERT_PIXELS } from './images.js';
import { statedPpi } from './image-density.js';
import { transparentArea } from './transparency.js';
import { MIRROR_OVERLAP_PT, mirrorContent, mirrorTiles } from './mirror.js';
import { proportionOff, TRIM_TOLERANCE_MM, trimDesign, type TrimDesign } from './trim-design.js';
import { concatBytes } from '../util/array.js';
import type { AssembledLayer, AssemblyFill, AssemblyOutcome, AssemblyPlan } from './plan.js';

/** Why an assembly cannot be made from its inputs (an unreadable image, a PDF of many pages…): the caller's InvalidArgumentError. */
export class AssemblyInputError extends Error {
  override readonly name = 'AssemblyInputError';
}

type Layer = AssemblyPlan['layers'][number];
/** A tile's cell on the page (pt) and how many copies of the tile one cell holds across and down. */
interface Cell {
  widthPt: number;
  heightPt: number;
  repeat: number;
}
type Encoded =
  | { kind: 'image'; data: Uint8Array; filter: 'DCTDecode' | 'FlateDecode'; widthPx: number; heightPx: number; note: string; cell: Cell | null; facts: AssembledLayer }
  | { kind: 'pdf'; bytes: Uint8Array; note: string; facts: AssembledLayer };

/**
 * A tiling cell holds several copies of a tile when one copy would take more cells than this to
 * cover its page: renderers that draw every cell (PDFium, and MuPDF at print resolution) stay quick.
 */
const MAX_TILE_CELLS = 4096;

const fillOf = (layer: Layer, plan: AssemblyPlan): AssemblyFill => layer.fit ?? plan.fit;

/**
 * Builds the print file of an assembly plan. Throws {@link AssemblyInputError} for inputs that
 * cannot be used.
 * @example
 * const { bytes, changes } = await buildAssembly(plan, DEFAULT_DECODE_LIMITS);
 */
export async function buildAssembly(plan: AssemblyPlan, limits: DecodeLimits): Promise<AssemblyOutcome> {
  const changes: string[] = [];
  const encoded = new Map<string, Encoded>();
  // The facts of the first encoding: recompressing changes the bytes, not the fill or the tile's place.
  const layers: AssembledLayer[] = [];
  for (const layer of plan.layers) {
    const e = await prepare(layer, plan, { lossless: plan.lossless, jpegQuality: plan.jpegQuality, shrink: 1 });
    encoded.set(layer.id, e);
    layers.push(e.facts);
  }
  let bytes = await build(plan, encoded, limits);
  // After the first build: a PDF layer's fill is known once its page is read (a page at the trim size gets its bleed).
  for (const layer of plan.layers) changes.push(`${layer.id}: ${encoded.get(layer.id)!.note}`);
  // Keep the file under the cap: lower the JPEG quality step by step, from the originals.
  for (let quality = Math.min(plan.jpegQuality, 85) - 5; bytes.length > plan.maxFileBytes && quality >= 50; quality -= 10) {
    for (const layer of plan.layers) if (encoded.get(layer.id)!.kind === 'image') encoded.set(layer.id, await prepare(layer, plan, { lossless: false, jpegQuality: quality, shrink: 1 }));
    bytes = await build(plan, encoded, limits);
    changes.push(`recompressed at JPEG quality ${quality} to stay under ${formatBytes(plan.maxFileBytes)}: ${formatBytes(bytes.length)}`);
  }
  // Still too big: fewer pixels (the resolution drops, and the check will say so).
  for (let step = 1; bytes.length > plan.maxFileBytes && step <= 4; step++) {
    for (const layer of plan.layers) if (encoded.get(layer.id)!.kind === 'image') encoded.set(layer.id, await prepare(layer, plan, { lossless: false, jpegQuality: 50, shrink: 0.8 ** step }));
    bytes = await build(plan, encoded, limits);
    changes.push(`downsampled the images to ${Math.round(0.8 ** step * 100)} % to stay under ${formatBytes(plan.maxFileBytes)}: ${formatBytes(bytes.length)}`);
  }
  if (bytes.length > plan.maxFileBytes) changes.push(`could not get under ${formatBytes(plan.maxFileBytes)}: ${formatBytes(bytes.length)} (the check reports file-too-large)`);
  return { bytes, changes, layers };
}

/** No fill was asked for this layer (neither its own nor the plan's): one made at the trim size may get `bleed`. */
const fillAsked = (layer: Layer, plan: AssemblyPlan) => layer.fit !== undefined || plan.fitAsked !== false;

async function prepare(layer: Layer, plan: AssemblyPlan, how: { lossless: boolean; jpegQuality: number; shrink: number }): Promise<Encoded> {
  const input = layer.input;
  let fill = fillOf(layer, plan);
  if (Buffer.from(input.subarray(0, 1024)).toString('latin1').includes('%PDF-')) {
    if (fill === 'tile') throw new AssemblyInputError(`the layer ${layer.id} is a PDF: tile repeats an image; give the tile as PNG, JPEG, TIFF or WebP`);
    return {
      kind: 'pdf',
      bytes: input,
      // A page made at the trim size turns `cover` into `bleed` when it is placed (build below).
      note: `one-page PDF placed as vector content (${fill}${fill === 'mirror' ? ': contain, the rest mirrored from its edges' : ''})`,
      facts: { layer: layer.id, fill, source: 'pdf', widthPx: null, heightPx: null, tile: null },
    };
  }
  let meta;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_CONVERT_PIXELS }).metadata();
  } catch (error) {
    throw new AssemblyInputError(`Expected a PNG, JPEG, TIFF, WebP or PDF file for layer ${layer.id}, but it cannot be read (${(error as Error).message})`);
  }
  if (!meta.width || !meta.height) throw new AssemblyInputError(`the image for layer ${layer.id} has no size`);
  if (meta.format === 'jpeg') {
    const scans = jpegScanReason(input, meta.width * meta.height);
    if (scans) throw new AssemblyInputError(`the image for layer ${layer.id} cannot be converted: ${scans}`);
  }
  const upright = (meta.orientation ?? 1) >= 5;
  const sw = upright ? meta.height : meta.width;
  const sh = upright ? meta.width : meta.height;
  // An image made at the trim size is the design up to the cut line: placed there at its own size,
  // its edges mirrored into the bleed — not scaled by cover to the page and cut off.
  const stated = statedPpi(input, meta);
  let design: TrimDesign | null = null;
  if (fill === 'bleed' || (fill === 'cover' && !fillAsked(layer, plan))) {
    const found = trimDesign(sw, sh, stated, layer);
    if (found) fill = 'bleed';
    if (fill === 'bleed')
      design = fillAsked(layer, plan) ? { ...(found ?? { widthMm: layer.trimWidthMm ?? layer.pageWidthMm, heightMm: layer.trimHeightMm ?? layer.pageHeightMm }), chosen: 'asked' } : found;
  }
  const source = `${meta.format ?? 'image'} ${meta.width} × ${meta.height} px${meta.space && meta.space !== 'srgb' ? `, ${meta.space}` : ''}${meta.icc ? ' with ICC profile' : ''}${meta.depth && meta.depth !== 'uchar' ? `, ${meta.depth}` : ''}${meta.hasAlpha ? ', alpha' : ''}`;
  const facts: AssembledLayer = { layer: layer.id, fill, source: 'image', widthPx: sw, heightPx: sh, tile: null };
  if (design) {
    const at = (n: number) => Math.round(n * 100) / 100;
    facts.bleed = {
      xMm: at((layer.pageWidthMm - design.widthMm) / 2),
      yMm: at((layer.pageHeightMm - design.heightMm) / 2),
      widthMm: at(design.widthMm),
      heightMm: at(design.heightMm),
      chosen: design.chosen,
    };
  }
  if (meta.hasAlpha && how.shrink === 1) {
    let area;
    try {
      area = await transparentArea(
        input,
        fill,
        { widthMm: layer.pageWidthMm, heightMm: layer.pageHeightMm },
        { widthMm: layer.trimWidthMm ?? layer.pageWidthMm, heightMm: layer.trimHeightMm ?? layer.pageHeightMm },
        design,
      );
    } catch (error) {
      throw new AssemblyInputError(`the image for layer ${layer.id} cannot be converted (${(error as Error).message})`);
    }
    facts.transparent = area ? { ...area, filledWith: plan.backgroundChosen ? plan.background : null } : null;
  }
  let pipeline = sharp(input, { limitInputPixels: MAX_CONVERT_PIXELS, sequentialRead: true, failOn: 'none' })
    .rotate() // EXIF orientation
    .flatten({ background: plan.background });
  let tw: number;
  let th: number;
  let cell: Cell | null = null;
  let how_: string;
  if (fill === 'tile') {
    // The tile keeps its physical size (its pixels at the stated resolution) whatever its pixels
    // become: fewer under the pixel cap or the size cap, never more.
    const ppi = stated ?? plan.productionPpi;
    const widthPt = (sw / ppi) * 72;
    const heightPt = (sh / ppi) * 72;
    const pageArea = mmToPt(layer.pageWidthMm) * mmToPt(layer.pageHeightMm);
    const repeat = Math.max(1, Math.ceil(Math.sqrt(pageArea / (widthPt * heightPt) / MAX_TILE_CELLS)));
    const cap = Math.min(1, plan.maxImagePixels / (Math.max(sw, sh) * repeat));
    tw = Math.max(1, Math.round(sw * cap * how.shrink));
    th = Math.max(1, Math.round(sh * cap * how.shrink));
    if (tw !== sw || th !== sh) pipeline = pipeline.resize(tw, th, { fit: 'fill', kernel: 'lanczos3' });
    if (repeat > 1) {
      // libvips repeats the decoded tile: one image object whose cell holds repeat × repeat copies.
      pipeline = sharp(await pipeline.toColourspace('srgb').removeAlpha().png({ compressionLevel: 1 }).toBuffer(), { limitInputPixels: MAX_CONVERT_PIXELS }).extend({
        right: (repeat - 1) * tw,
        bottom: (repeat - 1) * th,
        extendWith: 'repeat',
      });
    }
    cell = { widthPt: widthPt * repeat, heightPt: heightPt * repeat, repeat };
    facts.tile = { widthMm: round2((widthPt / 72) * 25.4), heightMm: round2((heightPt / 72) * 25.4), ppi, stated: stated !== null };
    how_ = `tile ${formatNumber((widthPt / 72) * 25.4, 1)} × ${formatNumber((heightPt / 72) * 25.4, 1)} mm at ${formatNumber(ppi, 0)} ppi (${stated !== null ? 'the resolution the image states' : "it states none: the product's production resolution"}), repeated from the page centre`;
    tw *= repeat;
    th *= repeat;
  } else if (fill === 'bleed') {
    const placed = placeOnTrim(pipeline, sw, sh, design!, layer, plan, how.shrink);
    ({ pipeline, tw, th, how_ } = placed);
  } else {
    // Pixels needed at the production resolution, capped at the pixel limit.
    tw = Math.round(mmToPx(layer.pageWidthMm, plan.productionPpi));
    th = Math.round(mmToPx(layer.pageHeightMm, plan.productionPpi));
    const cap = plan.maxImagePixels / Math.max(tw, th);
    if (cap < 1) {
      tw = Math.floor(tw * cap);
      th = Math.floor(th * cap);
    }
    const scale = fill === 'contain' || fill === 'mirror' ? Math.min(tw / sw, th / sh) : Math.max(tw / sw, th / sh);
    if (scale > 1 && !plan.upsample) {
      tw = Math.max(1, Math.round(tw / scale));
      th = Math.max(1, Math.round(th / scale));
    }
    tw = Math.max(1, Math.round(tw * how.shrink));
    th = Math.max(1, Math.round(th * how.shrink));
    if (fill === 'mirror') {
      // Contain, then the bands beside the image continue its edges, reflected (libvips's mirror
      // extension repeats the reflection when a band is wider than the image).
      const s = Math.min(tw / sw, th / sh);
      const iw = Math.max(1, Math.min(tw, Math.round(sw * s)));
      const ih = Math.max(1, Math.min(th, Math.round(sh * s)));
      const left = Math.floor((tw - iw) / 2);
      const top = Math.floor((th - ih) / 2);
      pipeline = pipeline.resize(iw, ih, { fit: 'fill', kernel: 'lanczos3' });
      if (iw !== tw || ih !== th) {
        pipeline = sharp(await pipeline.toColourspace('srgb').removeAlpha().png({ compressionLevel: 1 }).toBuffer(), { limitInputPixels: MAX_CONVERT_PIXELS }).extend({
          left,
          right: tw - iw - left,
          top,
          bottom: th - ih - top,
          extendWith: 'mirror',
        });
      }
      how_ = 'mirror: contain, the rest mirrored from its edges';
    } else {
      pipeline = pipeline.resize(tw, th, { fit: fill === 'stretch' ? 'fill' : fill, background: plan.background, kernel: 'lanczos3' });
      how_ = fill;
    }
  }
  pipeline = pipeline.toColourspace('srgb').removeAlpha();
  let data: Uint8Array;
  let filter: 'DCTDecode' | 'FlateDecode';
  try {
    if (how.lossless) {
      data = pngIdat(new Uint8Array(await pipeline.png({ compressionLevel: 6, adaptiveFiltering: true, palette: false, progressive: false }).toBuffer()));
      filter = 'FlateDecode';
    } else {
      const jpeg = await pipeline.jpeg({ quality: how.jpegQuality, chromaSubsampling: '4:4:4' }).toBuffer();
      data = new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
      filter = 'DCTDecode';
    }
  } catch (error) {
    throw new AssemblyInputError(`the image for layer ${layer.id} cannot be converted (${(error as Error).message})`);
  }
  const eff = cell ? (tw / cell.widthPt) * 72 : Math.min(tw / (layer.pageWidthMm / 25.4), th / (layer.pageHeightMm / 25.4));
  return {
    kind: 'image',
    data,
    filter,
    widthPx: tw,
    heightPx: th,
    cell,
    facts,
    note: `${source} → ${tw} × ${th} px sRGB (${Math.round(eff)} ppi, ${how_}, ${filter === 'DCTDecode' ? `JPEG q${how.jpegQuality}` : 'lossless'})`,
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The `bleed` fill in pixels: the design's own pixels on the design's place (cut to its
 * proportions only when they are off by more than the tolerance — an asked bleed of another
 * shape), never resampled unless the pixel cap, a shrink for the size cap or `upsample` asks it;
 * then each bleed strip made of the pixels at the design's edge, reflected (libvips's mirror
 * extension). One image over the whole page: every renderer draws it as one, the check sees one
 * resolution, and the strips are the design's own edge, not a stretch or a flat colour.
 */
function placeOnTrim(pipeline: Sharp, sw: number, sh: number, design: TrimDesign, layer: Layer, plan: AssemblyPlan, shrink: number) {
  const { widthMm: dw, heightMm: dh } = design;
  let cw = sw;
  let ch = sh;
  if (proportionOff(sw, sh, dw, dh) > TRIM_TOLERANCE_MM) {
    cw = Math.max(1, Math.min(sw, Math.round((sh * dw) / dh)));
    ch = Math.max(1, Math.min(sh, Math.round((sw * dh) / dw)));
    pipeline = pipeline.extract({ left: Math.floor((sw - cw) / 2), top: Math.floor((sh - ch) / 2), width: cw, height: ch });
  }
  const bleedX = (layer.pageWidthMm - dw) / 2;
  const bleedY = (layer.pageHeightMm - dh) / 2;
  let k = 1;
  const ppi = Math.min(cw / (dw / 25.4), ch / (dh / 25.4));
  if (plan.upsample && ppi < plan.productionPpi) k = plan.productionPpi / ppi;
  const longest = Math.max((cw * layer.pageWidthMm) / dw, (ch * layer.pageHeightMm) / dh) * k;
  // Two pixels of slack: each bleed strip is rounded to whole pixels after the scaling.
  if (longest > plan.maxImagePixels) k *= (plan.maxImagePixels - 2) / longest;
  k *= shrink;
  const iw = Math.max(1, Math.round(cw * k));
  const ih = Math.max(1, Math.round(ch * k));
  if (iw !== cw || ih !== ch) pipeline = pipeline.resize(iw, ih, { fit: 'fill', kernel: 'lanczos3' });
  const bx = Math.max(0, Math.round((bleedX * iw) / dw));
  const by = Math.max(0, Math.round((bleedY * ih) / dh));
  if (bx || by) pipeline = pipeline.extend({ left: bx, right: bx, top: by, bottom: by, extendWith: 'mirror' });
  const why = design.chosen === 'asked' ? 'asked' : design.chosen === 'stated-size' ? 'the size the image states' : "the image has the trim's proportions";
  const mm = (n: number) => formatNumber(n, 1);
  return {
    pipeline,
    tw: iw + 2 * bx,
    th: ih + 2 * by,
    how_: `bleed: the image is the design up to the cut line (${why}), placed at its own size, ${mm(dw)} × ${mm(dh)} mm${dw === layer.trimWidthMm && dh === layer.trimHeightMm ? ' (the trim)' : ''}, centred${iw === cw && ih === ch ? ', its pixels kept' : ''}; the bleed (${mm(bleedX)} mm left and right, ${mm(bleedY)} mm top and bottom) mirrored from its edges`,
  };
}

/**
 * The zlib data of a PNG (its IDAT chunks joined): exactly a PDF Flate stream with the PNG
 * predictor (/Predictor 15, /Colors 3, /BitsPerComponent 8, /Columns width).
 */
export function pngIdat(png: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const parts: Uint8Array[] = [];
  let at = 8;
  while (at + 8 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (type === 'IHDR' && (png[at + 8 + 8] !== 8 || png[at + 8 + 9] !== 2 || png[at + 8 + 12] !== 0)) throw new Error('expected an 8-bit RGB PNG without interlacing');
    if (type === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') break;
    at += 12 + length;
  }
  return concatBytes(parts);
}

/**
 * A layer's one-page PDF, ready to embed: parsed under the decode budget, and its page content
 * decoded under it once — pdf-lib's embedder decodes the content again with its own filters, which
 * have no limit, so a bomb behind LZW or RunLength must stop here first. A layer over the budget,
 * or whose content cannot be decoded, is refused, never a crash or a hang.
 */
async function layerPdf(bytes: Uint8Array, id: string, limits: DecodeLimits): Promise<PDFDocument> {
  try {
    const { doc, budget } = await loadDocument(bytes, limits, { ignoreEncryption: true });
    if (doc.getPageCount() !== 1) throw new AssemblyInputError(`the PDF for layer ${id} has ${doc.getPageCount()} pages; give one page per layer`);
    const contents = doc.getPage(0).node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((c) => doc.context.lookup(c)) : [contents];
    for (const stream of streams) {
      if (stream instanceof PDFRawStream) decodeStream(doc.context, stream, { maxBytes: limits.maxFileDecodedBytes, budget, what: `the page content of layer ${id}` });
    }
    return doc;
  } catch (error) {
    if (error instanceof BudgetExceededError || error instanceof StreamTooLargeError) throw new AssemblyInputError(`the PDF for layer ${id} is too complex to place: ${error.message}`);
    if (error instanceof StreamDecodeError) throw new AssemblyInputError(`the PDF for layer ${id} cannot be placed: its page content cannot be decoded (${error.message})`);
    if (error instanceof RangeError) throw new AssemblyInputError(`the PDF for layer ${id} cannot be placed: its structure is too deeply nested`);
    throw error;
  }
}

async function build(plan: AssemblyPlan, encoded: Map<string, Encoded>, limits: DecodeLimits): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer('print-preflight');
  for (const layer of plan.layers) {
    const W = mmToPt(layer.pageWidthMm);
    const H = mmToPt(layer.pageHeightMm);
    const page = doc.addPage([W, H]);
    const e = encoded.get(layer.id)!;
    if (e.kind === 'pdf') {
      const source = await layerPdf(e.bytes, layer.id, limits);
      const [embedded] = await doc.embedPdf(source, [0]);
      let fill = fillOf(layer, plan);
      const design = fill === 'bleed' || (fill === 'cover' && !fillAsked(layer, plan)) ? pdfDesign(embedded!, layer, fillAsked(layer, plan)) : null;
      if (design) {
        // On the trim at its own size (or, asked, whole in the trim), the rest mirrored from its edges.
        fill = 'bleed';
        const s = design.scale;
        const placed = { x: (W - embedded!.width * s) / 2, y: (H - embedded!.height * s) / 2, width: embedded!.width * s, height: embedded!.height * s };
        page.node.setXObject(PDFName.of('Lp0'), embedded!.ref);
        appendContent(page, mirrorContent('Lp0', mirrorTiles(placed, W, H, MIRROR_OVERLAP_PT), { x: s, y: s }, W, H));
        const mm = (pt: number) => Math.round((pt / 72) * 25.4 * 100) / 100;
        e.facts.fill = 'bleed';
        e.facts.bleed = { xMm: mm(placed.x), yMm: mm(placed.y), widthMm: mm(placed.width), heightMm: mm(placed.height), chosen: design.chosen };
        e.note = `one-page PDF placed as vector content (bleed: ${design.chosen === 'asked' ? 'asked' : 'the page is the trim'}; the design ${formatNumber(mm(placed.width), 1)} × ${formatNumber(mm(placed.height), 1)} mm at its ${s === 1 ? 'own size' : 'size in the trim'}, the bleed drawn again as reflected forms from its edges)`;
        continue;
      }
      const m = fitInto(embedded!.width, embedded!.height, W, H, fill === 'mirror' || fill === 'tile' || fill === 'bleed' ? 'contain' : fill);
      if (fill === 'mirror') {
        // The page drawn again, reflected across each edge of its place, as the same form.
        const placed = { x: m[4], y: m[5], width: embedded!.width * m[0], height: embedded!.height * m[3] };
        page.node.setXObject(PDFName.of('Lp0'), embedded!.ref);
        appendContent(page, mirrorContent('Lp0', mirrorTiles(placed, W, H, MIRROR_OVERLAP_PT), { x: m[0], y: m[3] }, W, H));
        continue;
      }
      if (fill !== 'cover') page.drawRectangle({ x: 0, y: 0, width: W, height: H, color: hexColour(plan.background) });
      page.drawPage(embedded!, { x: m[4], y: m[5], xScale: m[0], yScale: m[3] });
      continue;
    }
    const dict = doc.context.obj({ Type: 'XObject', Subtype: 'Image', Width: e.widthPx, Height: e.heightPx, BitsPerComponent: 8, ColorSpace: 'DeviceRGB', Filter: e.filter }) as PDFDict;
    if (e.filter === 'FlateDecode') dict.set(PDFName.of('DecodeParms'), doc.context.obj({ Predictor: 15, Colors: 3, BitsPerComponent: 8, Columns: e.widthPx }));
    dict.set(PDFName.of('Length'), PDFNumber.of(e.data.length));
    const ref = doc.context.register(PDFRawStream.of(dict, e.data));
    if (e.cell) {
      // A tiling pattern of one image object: the file holds the tile once, every renderer repeats
      // it exactly at its step, and the check sees one image at the tile's own resolution.
      const { widthPt: cw, heightPt: ch } = e.cell;
      const cellContent = `q ${num(cw)} 0 0 ${num(ch)} 0 0 cm /Im0 Do Q`;
      const pattern = doc.context.flateStream(cellContent, {
        Type: 'Pattern',
        PatternType: 1,
        PaintType: 1,
        TilingType: 1,
        BBox: [0, 0, num(cw), num(ch)].map(Number),
        XStep: Number(num(cw)),
        YStep: Number(num(ch)),
        // A tile centred on the page: the repeat is symmetric about the centre of every layer.
        Matrix: [1, 0, 0, 1, Number(num((W - cw) / 2)), Number(num((H - ch) / 2))],
        Resources: { XObject: { Im0: ref } },
      });
      const patternRef = doc.context.register(pattern);
      const resources = page.node.normalizedEntries().Resources;
      resources.set(PDFName.of('Pattern'), doc.context.obj({ P0: patternRef }));
      appendContent(page, `q /Pattern cs /P0 scn 0 0 ${num(W)} ${num(H)} re f Q`);
      continue;
    }
    page.node.setXObject(PDFName.of('Im0'), ref);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(W, 0, 0, H, 0, 0), drawObject('Im0'), popGraphicsState());
  }
  return doc.save({ useObjectStreams: true });
}

const num = (n: number) => (Math.abs(n) < 1e-9 ? '0' : String(Math.round(n * 10000) / 10000));

/**
 * Where a PDF layer's page goes for the `bleed` fill: at its own size when it is made at the trim
 * size (or between the trim and the page), else — only when asked — whole inside the trim; null
 * when it is not the trim's and the fill was not asked.
 */
function pdfDesign(embedded: { width: number; height: number }, layer: Layer, asked: boolean): { scale: number; chosen: TrimDesign['chosen'] } | null {
  // A page states its size: its points are pixels at 72 ppi.
  const found = trimDesign(embedded.width, embedded.height, 72, layer);
  const tw = mmToPt(layer.trimWidthMm ?? layer.pageWidthMm);
  const th = mmToPt(layer.trimHeightMm ?? layer.pageHeightMm);
  const fitted = Math.min(tw / embedded.width, th / embedded.height);
  // At the trim size (within 1 mm) or between it and the page: its own size, as a fixed page keeps it.
  if (found) return { scale: found.chosen === 'stated-size' ? 1 : fitted, chosen: asked ? 'asked' : found.chosen };
  return asked ? { scale: fitted, chosen: 'asked' } : null;
}

/** Appends content-stream text to a page, as a stream of its own. */
function appendContent(page: PDFPage, content: string) {
  page.node.addContentStream(page.doc.context.register(page.doc.context.flateStream(content)));
}

function hexColour(css: string) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css.trim());
  const [r, g, b] = m ? [m[1], m[2], m[3]].map((h) => parseInt(h!, 16) / 255) : [1, 1, 1];
  return { type: 'RGB', red: r!, green: g!, blue: b! } as never;
}
