/**
 * The fix transform: each fix a separate step, driven by a plan made from a check's findings
 * (flow/fix.ts plans it; the transform never checks a file itself). Bake /Rotate into the content;
 * turn a sideways page (direction given, never guessed); scale a page of the right proportions; fit
 * a page of other proportions (only with an explicit fit); convert images and vector colours to
 * sRGB; downsample images over the pixel cap; recompress a file over the size cap.
 *
 * Runs in a pool worker (pool/worker-main.ts): parsed and decoded under the file's decode budget,
 * with the worker's heap cap, the pool's time limit and memory watchdog. What cannot be done within
 * them is refused with the reason.
 */
import { createHash } from 'node:crypto';
import { multiply } from '../pdf/matrix.js';
import { N, dictOf, getDict, getName, items, PDFArray, rectOf, resolve } from '../pdf/objects.js';
import { ColourSpaceResolver } from '../pdf/colour-space.js';
import { BudgetExceededError, type DecodeBudget } from '../pdf/decode-budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import type { PDFDocument } from '../pdf/pdf-lib-document.js';
import { PDFName, PDFRawStream, PDFRef, type PDFPage } from '../pdf/pdf-lib.js';
import { decodeStream, filtersOf, fullFilterName, joinContentStreams, StreamDecodeError } from '../pdf/streams.js';
import { mmToPt, ptToMm, formatBytes, formatNumber } from '../pdf/units.js';
import { jpegSize } from '../pdf/image-header.js';
import { jpegScanReason } from '../pdf/jpeg-scans.js';
import type { FindingCode } from '../model/codes.js';
import { instructionWords, type Fit } from '../model/instructions.js';
import { loadSharp } from '../raster/sharp.js';
import { pushAll } from '../util/array.js';
import { loadForTransform, UntransformableError } from './document.js';
import { extendBleed } from './bleed.js';
import { pageMatrix } from './geometry.js';
import { MAX_CONVERT_PIXELS, rewriteImage } from './images.js';
import { transformPage } from './page-transform.js';
import type { FixOutcome, FixPlan } from './plan.js';
import type { Change, Refusal } from '../model/change.js';
import { writeEditLog } from './edit-log.js';
import { imageRefs } from './image-refs.js';
import { changeKind, measurePages } from './measure.js';
import { DIFFERENCE_BOUNDS, withinBound } from '../model/difference.js';
import { VectorColourRewriter } from './vector.js';
import { cmykOutputIntent } from '../pdf/output-intent.js';

export type { FixPlan } from './plan.js';

const GEOMETRY: FindingCode[] = ['page-rotate-set', 'page-orientation-mismatch', 'page-scale-mismatch', 'page-size-mismatch'];

/**
 * Applies a fix plan to a file's bytes. Resolves with the new bytes (null when nothing changed or the
 * file cannot be worked on), the changes and the fixes refused; never throws for a bad file.
 * @example
 * const out = await applyFixes(bytes, { pages: [{ index: 1, rotate: 90, layer: null, codes: ['page-rotate-set'] }], jpegQuality: 92, colour: false, maxImagePixels: null, fileTooLarge: false, maxFileBytes: 50e6 }, DEFAULT_DECODE_LIMITS);
 */
export async function applyFixes(bytes: Uint8Array, plan: FixPlan, limits: DecodeLimits): Promise<FixOutcome> {
  const changes: Change[] = [];
  const refused: Refusal[] = [];
  const cannot = (error: unknown): FixOutcome => {
    if (error instanceof BudgetExceededError) refused.push({ code: 'pdf-too-complex', page: null, reason: `the file cannot be fixed: ${error.message}` });
    else if (error instanceof UntransformableError) refused.push({ code: 'pdf-damaged', page: null, reason: `the file cannot be fixed: ${error.message}` });
    else if (error instanceof RangeError) refused.push({ code: 'pdf-too-complex', page: null, reason: `the file cannot be fixed: its structure is too deeply nested (${error.message})` });
    else throw error;
    return { bytes: null, changes: [], refused };
  };
  try {
    const { doc, budget, pages } = await loadForTransform(bytes, limits);
    // 1. Geometry, page by page.
    for (const pagePlan of plan.pages) {
      const page = pages[pagePlan.index - 1];
      if (!pagePlan.layer || !page) continue;
      const codes = new Set(pagePlan.codes);
      if (codes.has('page-bleed-missing')) {
        // Before any scaling: the bleed is added around the design, which keeps its size and place.
        try {
          const added = extendBleed(page, pagePlan.rotate, { width: mmToPt(pagePlan.layer.widthMm), height: mmToPt(pagePlan.layer.heightMm) }, budget);
          if (codes.has('page-rotate-set')) changes.push({ code: 'page-rotate-set', page: pagePlan.index, action: `baked /Rotate ${pagePlan.rotate} into the page content; /Rotate is now 0` });
          changes.push({
            code: 'page-bleed-missing',
            page: pagePlan.index,
            action: `added the bleed by mirroring the design's edges (${formatNumber(ptToMm(added.x), 1)} mm left and right, ${formatNumber(ptToMm(added.y), 1)} mm top and bottom; the design keeps its size and place, vector content stays vector): the page is now ${formatNumber(pagePlan.layer.widthMm, 1)} × ${formatNumber(pagePlan.layer.heightMm, 1)} mm`,
          });
        } catch (error) {
          if (!(error instanceof StreamDecodeError)) throw error;
          refused.push({ code: 'page-bleed-missing', page: pagePlan.index, reason: `the bleed cannot be added: the page's content cannot be decoded (${error.message})` });
        }
        continue;
      }
      if (!GEOMETRY.some((c) => codes.has(c))) continue;
      const step = planGeometry(pagePlan.index, codes, pagePlan.rotate, plan, refused);
      if (!step) continue;
      applyGeometry(page, pagePlan.rotate + step.turn, step.resize ? { width: mmToPt(pagePlan.layer.widthMm), height: mmToPt(pagePlan.layer.heightMm) } : null, step.fit);
      pushAll(
        changes,
        step.changes.map((action) => ({ ...action, page: pagePlan.index })),
      );
    }
    // 2. Colour: images and vector colour to sRGB; 3. images over the pixel cap.
    // DeviceCMYK means the file's CMYK output intent where it has one (cmyk-profile.ts: the chain).
    const deviceCmyk = plan.colour ? cmykOutputIntent(doc.context, budget) : undefined;
    if (plan.colour || plan.maxImagePixels !== null) await fixImages(doc, budget, pages, plan, changes, refused, deviceCmyk);
    if (plan.colour) await fixVectorColour(doc, budget, pages, changes, refused, deviceCmyk);
    // 4. Size: recompress JPEG images until the file is under the cap.
    let out = await doc.save({ useObjectStreams: true });
    if (plan.fileTooLarge && out.length > plan.maxFileBytes) {
      for (const quality of [85, 75, 65, 55]) {
        if (out.length <= plan.maxFileBytes) break;
        const n = await recompressJpegs(doc, budget, quality);
        if (n === 0) break;
        out = await doc.save({ useObjectStreams: true });
        changes.push({ code: 'file-too-large', page: null, action: `recompressed ${n} JPEG image${n === 1 ? '' : 's'} at quality ${quality}: ${formatBytes(out.length)}` });
      }
      if (out.length > plan.maxFileBytes)
        refused.push({ code: 'file-too-large', page: null, reason: `still ${formatBytes(out.length)} after recompressing: reduce the images' pixel size or the number of pages` });
    }
    // Nothing changed: nothing to write (a re-saved copy would only look like a fix).
    if (!changes.length) return { bytes: null, changes, refused };
    // 5. Every change measured against its bound, and the edit log written into the file.
    return await measuredAndLogged({ bytes, out, doc, budget, plan, limits, changes, refused });
  } catch (error) {
    return cannot(error);
  }
}

/**
 * The fixed file's changed pages drawn before and after and compared (measure.ts): each change
 * carries its page's difference. A page whose colours moved past the colour bound keeps its
 * colours (the fix made again without the conversion, the refusal saying by how much); a geometric
 * change that altered the page is refused whole. Then the edit log goes into the file's XMP.
 */
async function measuredAndLogged(step: {
  bytes: Uint8Array;
  out: Uint8Array;
  doc: PDFDocument;
  budget: DecodeBudget;
  plan: FixPlan;
  limits: DecodeLimits;
  changes: Change[];
  refused: Refusal[];
}): Promise<FixOutcome> {
  const { bytes, out, doc, budget, plan, limits, changes, refused } = step;
  const kindsOf = (page: number) => new Set(changes.filter((c) => c.page === page).map((c) => changeKind(c.code)));
  const compared = [...new Set(changes.map((c) => c.page).filter((p): p is number => p !== null))].filter((p) => !kindsOf(p).has('layout'));
  const measured = await measurePages(bytes, out, doc, compared);
  const boundOf = (page: number) => (kindsOf(page).has('colour') ? 'colour' : 'geometry');
  // A page past its bound as PDFium draws it is drawn again by pdf.js: one engine's way with a
  // colour space (PDFium's Indexed fills, its own CMYK) never refuses a fix the other draws alike.
  const first = [...measured].filter(([page, d]) => !withinBound(boundOf(page), d)).map(([page]) => page);
  if (first.length) {
    for (const [page, d] of await measurePages(bytes, out, doc, first, 'pdfjs')) if (withinBound(boundOf(page), d)) measured.set(page, d);
  }
  const over = [...measured].filter(([page, d]) => !withinBound(boundOf(page), d));
  const colourOver = over.filter(([page]) => boundOf(page) === 'colour');
  if (colourOver.length && plan.colour) {
    const again = await applyFixes(bytes, { ...plan, colour: false }, limits);
    const { meanDeltaE00: mean, p95DeltaE00: p95 } = DIFFERENCE_BOUNDS.colour;
    return {
      ...again,
      refused: [
        ...again.refused,
        ...colourOver.map(([page, d]) => ({
          code: 'colour-space-not-rgb' as const,
          page,
          reason: `converting the colours would change the page by ΔE00 ${d.meanDeltaE00} on average and ${d.p95DeltaE00} at the 95th percentile, past the bound of ${mean} and ${p95}: the colours are left as they are`,
        })),
      ],
    };
  }
  if (over.length) {
    const why = over.map(([page, d]) => ({
      // A fix's changes answer findings: their codes are finding codes.
      code: changes.find((c) => c.page === page)!.code as FindingCode,
      page,
      reason: `the fixed page differs from the original on ${(d.changedShare * 100).toFixed(1)} % of its pixels, past the bound of ${DIFFERENCE_BOUNDS.geometry.changedShare * 100} %: nothing is written`,
    }));
    return { bytes: null, changes: [], refused: [...refused, ...why] };
  }
  const withDifference = changes.map((c) => (c.page !== null && measured.has(c.page) ? { ...c, difference: measured.get(c.page)! } : c));
  writeEditLog(doc, plan.log?.originalSha256 ?? createHash('sha256').update(bytes).digest('hex'), [...(plan.log?.earlier ?? []), ...withDifference], budget);
  return { bytes: await doc.save({ useObjectStreams: true }), changes: withDifference, refused };
}

interface GeometryStep {
  turn: number;
  resize: boolean;
  fit: Fit;
  changes: Omit<Change, 'page'>[];
}

/** What the geometry fixes of one page do, from the codes found on it; refusals for what cannot be decided. */
export function planGeometry(page: number, codes: Set<FindingCode>, rotate: number, opts: Pick<FixPlan, 'rotate' | 'fit' | 'instructions'>, refused: Refusal[]): GeometryStep | null {
  const say = instructionWords(opts.instructions);
  const step: GeometryStep = { turn: 0, resize: false, fit: 'contain', changes: [] };
  if (codes.has('page-rotate-set')) step.changes.push({ code: 'page-rotate-set', action: `baked /Rotate ${rotate} into the page content; /Rotate is now 0` });
  if (codes.has('page-orientation-mismatch')) {
    if (!opts.rotate) {
      refused.push({ code: 'page-orientation-mismatch', page, reason: `the page is sideways, but which way the design should turn cannot be known: ${say.rotate}` });
    } else {
      step.turn = opts.rotate === 'cw' ? 90 : 270;
      step.resize = true;
      step.changes.push({ code: 'page-orientation-mismatch', action: `turned the page content 90° ${opts.rotate === 'cw' ? 'clockwise' : 'counter-clockwise'} onto a page of the layer's size` });
    }
  }
  if (codes.has('page-scale-mismatch')) {
    step.resize = true;
    step.changes.push({ code: 'page-scale-mismatch', action: 'scaled the page uniformly to the layer size' });
  }
  if (codes.has('page-size-mismatch')) {
    if (!opts.fit) {
      refused.push({ code: 'page-size-mismatch', page, reason: `the page has other proportions than its layer: ${say.fit}` });
    } else {
      step.resize = true;
      step.fit = opts.fit;
      step.changes.push({ code: 'page-size-mismatch', action: `fitted the page to the layer size (${opts.fit})` });
    }
  }
  return step.changes.length ? step : null;
}

function applyGeometry(page: PDFPage, turn: number, target: { width: number; height: number } | null, fit: GeometryStep['fit']) {
  const context = page.doc.context;
  const media = rectOf(context, page.node.get(N('MediaBox'))) ?? [0, 0, 612, 792];
  const crop = rectOf(context, page.node.get(N('CropBox')));
  const box: [number, number, number, number] = crop ? [Math.max(crop[0], media[0]), Math.max(crop[1], media[1]), Math.min(crop[2], media[2]), Math.min(crop[3], media[3])] : media;
  const uu = Number(page.node.get(N('UserUnit'))?.toString() ?? 1) || 1;
  const scaled = box.map((v) => v * uu) as [number, number, number, number];
  const m = multiply([uu, 0, 0, uu, 0, 0], pageMatrix(scaled, turn, target, fit));
  const turned = turn % 180 !== 0;
  const w = target ? target.width : turned ? scaled[3] - scaled[1] : scaled[2] - scaled[0];
  const h = target ? target.height : turned ? scaled[2] - scaled[0] : scaled[3] - scaled[1];
  transformPage(page, m, w, h);
}

async function fixImages(doc: PDFDocument, budget: DecodeBudget, pages: PDFPage[], plan: FixPlan, changes: Change[], refused: Refusal[], deviceCmyk: Uint8Array | undefined) {
  const context = doc.context;
  const colourSpaces = new ColourSpaceResolver(context, (s) => decodeStream(context, s, { maxBytes: 64 * 1024 * 1024, budget, what: 'a colour space' }));
  const done = new Set<string>();
  for (const [index, page] of pages.entries()) {
    for (const ref of imageRefs(doc, page)) {
      const key = ref.toString();
      if (done.has(key)) continue;
      done.add(key);
      const r = await rewriteImage(context, ref, colourSpaces, { toSrgb: plan.colour, maxPx: plan.maxImagePixels, jpegQuality: plan.jpegQuality, budget, deviceCmyk });
      // A change is filed under the conversion when colour was asked for; an image left as it is
      // under what it needed (downsampling when it is over the cap, else its colour).
      const code: FindingCode = r.changed ? (plan.colour ? 'colour-space-not-rgb' : 'image-too-large') : r.tooLarge ? 'image-too-large' : 'colour-space-not-rgb';
      if (r.changed) changes.push({ code, page: index + 1, action: `image ${key}: ${r.what}` });
      else if (r.why) refused.push({ code, page: index + 1, reason: `image ${key} left as it is: ${r.why}` });
    }
  }
}

async function fixVectorColour(doc: PDFDocument, budget: DecodeBudget, pages: PDFPage[], changes: Change[], refused: Refusal[], deviceCmyk: Uint8Array | undefined) {
  const context = doc.context;
  const rewriter = new VectorColourRewriter(context, budget, deviceCmyk);
  // Every content stream: pages (joined), and the Form XObjects they use.
  const jobs: { page: number; bytes: Uint8Array; resources: ReturnType<typeof dictOf>; write: (b: Uint8Array) => void }[] = [];
  const formsSeen = new Set<string>();
  for (const [index, page] of pages.entries()) {
    const resources = dictOf(resolve(context, page.node.get(N('Resources'))));
    const contents = resolve(context, page.node.get(N('Contents')));
    const streams = contents instanceof PDFArray ? items(context, contents) : [contents];
    let parts: Uint8Array[];
    try {
      parts = streams.filter((s): s is PDFRawStream => s instanceof PDFRawStream).map((s) => decodeStream(context, s, { maxBytes: 256 * 1024 * 1024, budget, what: 'page content' }));
    } catch (error) {
      if (!(error instanceof StreamDecodeError)) throw error;
      // Content that cannot be decoded is left as it is (its colours with it), said as a refusal.
      refused.push({ code: 'colour-space-not-rgb', page: index + 1, reason: `the page's vector colours are left as they are: its content cannot be decoded (${error.message})` });
      continue;
    }
    const joined = joinContentStreams(parts);
    jobs.push({ page: index + 1, bytes: joined, resources, write: (b) => page.node.set(PDFName.of('Contents'), context.register(context.flateStream(b))) });
    const visitForms = (res: ReturnType<typeof dictOf>, depth: number) => {
      const xobjects = getDict(context, res, 'XObject');
      if (!xobjects || depth > 32) return;
      for (const [, value] of xobjects.entries()) {
        if (!(value instanceof PDFRef) || formsSeen.has(value.toString())) continue;
        const form = context.lookup(value);
        if (!(form instanceof PDFRawStream) || getName(context, form.dict, 'Subtype') !== 'Form') continue;
        formsSeen.add(value.toString());
        const formResources = getDict(context, form.dict, 'Resources') ?? res;
        let bytes: Uint8Array;
        try {
          bytes = decodeStream(context, form, { maxBytes: 256 * 1024 * 1024, budget, what: 'a form' });
        } catch (error) {
          if (!(error instanceof StreamDecodeError)) throw error;
          refused.push({ code: 'colour-space-not-rgb', page: index + 1, reason: `form ${value.toString()} is left as it is: its content cannot be decoded (${error.message})` });
          continue;
        }
        jobs.push({
          page: index + 1,
          bytes,
          resources: formResources,
          write: (b) => {
            const dict = form.dict.clone(context);
            dict.delete(PDFName.of('DecodeParms'));
            const fresh = context.flateStream(b, {});
            for (const [k, v] of dict.entries()) if (!['Filter', 'Length', 'DecodeParms'].includes(k.decodeText())) fresh.dict.set(k, v);
            context.assign(value, fresh);
          },
        });
        visitForms(formResources, depth + 1);
      }
    };
    visitForms(resources, 0);
  }
  for (const job of jobs) rewriter.collect(job.bytes, job.resources);
  await rewriter.convertCollected();
  const perPage = new Map<number, number>();
  for (const job of jobs) {
    const r = rewriter.rewrite(job.bytes, job.resources);
    if (r.changed) {
      job.write(r.bytes);
      perPage.set(job.page, (perPage.get(job.page) ?? 0) + r.changed);
    }
  }
  for (const [page, n] of perPage) changes.push({ code: 'colour-space-not-rgb', page, action: `rewrote ${n} vector colour operator${n === 1 ? '' : 's'} as sRGB` });
  for (const why of rewriter.left) refused.push({ code: 'colour-space-not-rgb', page: null, reason: `vector colour left as it is: ${why}` });
}

/** Re-encodes the file's RGB JPEG images at `quality` where that makes them smaller; resolves to how many. */
async function recompressJpegs(doc: PDFDocument, budget: DecodeBudget, quality: number): Promise<number> {
  const sharp = await loadSharp();
  let n = 0;
  for (const [ref, obj] of doc.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream) || getName(doc.context, obj.dict, 'Subtype') !== 'Image') continue;
    const filters = filtersOf(doc.context, obj.dict).map(fullFilterName);
    if (filters.length !== 1 || filters[0] !== 'DCTDecode' || getName(doc.context, obj.dict, 'ColorSpace') !== 'DeviceRGB') continue;
    const coded = jpegSize(obj.contents);
    // Recompressed only when a decoder may be given it (jpeg-scans.ts).
    if (!coded || jpegScanReason(obj.contents, coded.widthPx * coded.heightPx)) continue;
    budget.chargeDecoded(coded.widthPx * coded.heightPx * coded.components, 'a recompressed image');
    let data: Buffer;
    try {
      data = await sharp(obj.contents, { limitInputPixels: MAX_CONVERT_PIXELS, sequentialRead: true, failOn: 'truncated' }).jpeg({ quality }).toBuffer();
    } catch {
      continue; // a JPEG libvips cannot read whole is left as it is
    }
    if (data.length >= obj.contents.length) continue;
    const dict = obj.dict.clone(doc.context);
    dict.set(PDFName.of('Length'), doc.context.obj(data.length));
    doc.context.assign(ref, PDFRawStream.of(dict, new Uint8Array(data)));
    n++;
  }
  return n;
}
