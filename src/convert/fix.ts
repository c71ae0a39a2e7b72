/**
 * Fixes what can be fixed in a print file, each fix a separate step driven by the findings of a
 * first check: bake /Rotate into the content; turn a sideways page (direction given, never
 * guessed); scale a page of the right proportions; fit a page of other proportions (only with an
 * explicit fit); convert images and vector colours to sRGB; downsample images over the pixel cap;
 * recompress a file over the size cap. The output is checked again; the result lists every change
 * and every finding that remains.
 */
import { loadDocument, type PDFDocument } from '../pdf/pdf-lib-document.js';
import { PDFName, PDFRawStream, PDFRef, type PDFPage } from '../pdf/pdf-lib.js';
import { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';
import type { PreflightOptions, Target } from '../options.js';
import { ColourSpaceResolver } from '../pdf/colour-space.js';
import { multiply } from '../pdf/matrix.js';
import { N, dictOf, getDict, getName, items, PDFArray, rectOf, resolve } from '../pdf/objects.js';
import { decodeStream, joinContentStreams } from '../pdf/streams.js';
import { mmToPt } from '../pdf/units.js';
import { decodeLimitsOf, preflight } from '../flow/preflight.js';
import { BudgetExceededError, type DecodeBudget } from '../pdf/decode-budget.js';
import { formatPath, registryFrom } from '../profile/load.js';
import { formatBytes } from '../report/format.js';
import type { Report } from '../report/schema.js';
import { FindingCodeSchema, type FindingCode } from '../rules/codes.js';
import { readSource } from '../source/read.js';
import { pageMatrix, type Fit } from './geometry.js';
import { assertPermutation, reorderPages } from './reorder.js';
import { rewriteImage } from './images.js';
import { transformPage } from './page-transform.js';
import { VectorColourRewriter } from './vector.js';
import { pushAll } from '../util/array.js';

export const FixOptionsSchema = z
  .object({
    /** Direction to turn sideways pages (page-orientation-mismatch). Never guessed. */
    rotate: z.enum(['cw', 'ccw']).optional(),
    /** How to fit a page whose proportions differ from its layer (page-size-mismatch). Without it, refused. */
    fit: z.enum(['contain', 'cover', 'stretch']).optional(),
    /** Put the pages in layer order when their sizes say they are in another order (page-order-mismatch). */
    reorder: z.boolean().default(false),
    /** An explicit page order: `[3, 4, 1, 2]` makes page 3 the first. Overrides `reorder`. */
    pages: z.array(z.number().int().min(1)).min(1).optional(),
    /** The name the fixed file will be written under, for the report on it (default: the input's). */
    outPath: z.string().min(1).optional(),
    /**
     * Fix only findings of these codes (a policy's `fix` codes); the others are left as they are.
     * Default: every code the options allow. `page-order-mismatch` in the list means `reorder`.
     */
    codes: z.array(FindingCodeSchema).optional(),
    /** Check the fixed file again (`after`); `false` leaves that to the caller (`noteRemaining`). */
    recheck: z.boolean().default(true),
    /** JPEG quality of re-encoded images. */
    jpegQuality: z.number().int().min(30).max(100).default(92),
  })
  .strict();
export type FixOptions = z.input<typeof FixOptionsSchema>;

/** One change made to the file. */
export interface Change {
  code: FindingCode;
  page: number | null;
  action: string;
}

/** A fix that was asked for by a finding but not made, and why. */
export interface Refusal {
  code: FindingCode;
  page: number | null;
  reason: string;
}

export interface FixResult {
  /** The fixed file, or null when nothing was changed or nothing could be written. */
  bytes: Uint8Array | null;
  changes: Change[];
  refused: Refusal[];
  before: Report;
  after: Report | null;
}

const GEOMETRY: FindingCode[] = ['page-rotate-set', 'page-orientation-mismatch', 'page-scale-mismatch', 'page-size-mismatch'];
const FATAL: FindingCode[] = ['file-not-pdf', 'pdf-damaged', 'pdf-encrypted', 'pdf-too-complex', 'pdf-timeout'];

/**
 * Fixes a print file for a product.
 * @param input a path or the file's bytes
 * @param target `{ product, variant }` or `{ sku }`
 * @param options `rotate` (cw | ccw) for sideways pages, `fit` for pages of other proportions, `jpegQuality`
 * @param preflightOptions options of the checks before and after (profiles, limits, pool…)
 * @returns the new bytes, the changes, the fixes refused and the reports before and after
 * @example
 * const { bytes, changes, after } = await fix('in.pdf', { sku: 'CURTAINS-140X260' }, { rotate: 'cw' });
 * if (bytes && after?.verdict !== 'fail') await writeFile('out.pdf', bytes);
 */
export async function fix(input: string | Uint8Array, target: Target, options: FixOptions = {}, preflightOptions: PreflightOptions = {}): Promise<FixResult> {
  const parsed = FixOptionsSchema.safeParse(options);
  if (!parsed.success) throw new InvalidArgumentError(`Invalid fix options: ${parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`);
  const opts = parsed.data;
  const source = await readSource(input);
  let before = await preflight(source.bytes, target, { ...preflightOptions, raster: false, path: source.path });
  const changes: Change[] = [];
  const refused: Refusal[] = [];
  const fatal = before.findings.find((f) => FATAL.includes(f.code) && f.severity === 'error');
  if (fatal || before.pdf.encrypted) {
    const f = fatal ?? before.findings.find((x) => x.code === 'pdf-encrypted')!;
    refused.push({ code: f.code, page: null, reason: `the file cannot be fixed: ${f.message}` });
    return { bytes: null, changes, refused, before, after: null };
  }
  const original = before;
  // Parsed (reordered too) and decoded under the same decode budget as the checks: a file that holds the calling
  // thread (quadratic searches, bombs behind other filters) is refused, not worked on for minutes.
  const decodeLimits = decodeLimitsOf(preflightOptions.pool, preflightOptions.decodeLimits);
  const tooComplex = (error: unknown): FixResult => {
    if (!(error instanceof BudgetExceededError)) throw error;
    refused.push({ code: 'pdf-too-complex', page: null, reason: `the file cannot be fixed: ${error.message}` });
    return { bytes: null, changes, refused, before: original, after: null };
  };
  const wanted = (code: FindingCode) => !opts.codes || opts.codes.includes(code);
  const reorder = opts.reorder || (opts.codes?.includes('page-order-mismatch') ?? false);
  // 0. Page order, first: every other fix is judged against the page's layer.
  let inputBytes = source.bytes;
  const orderFinding = wanted('page-order-mismatch') ? before.findings.find((f) => f.code === 'page-order-mismatch') : undefined;
  const order = opts.pages ?? (reorder && typeof orderFinding?.details?.order === 'string' ? orderFinding.details.order.split(',').map(Number) : null);
  if (order) {
    assertPermutation(order, before.pdf.pageCount ?? 0);
    if (order.some((n, i) => n !== i + 1)) {
      try {
        inputBytes = await reorderPages(inputBytes, order, decodeLimits);
      } catch (error) {
        return tooComplex(error);
      }
      const ambiguous = orderFinding?.details?.ambiguous === true && !opts.pages;
      changes.push({
        code: 'page-order-mismatch',
        page: null,
        action: `put the pages in the order ${order.join(', ')}${ambiguous ? ' (layers of the same size keep the order they had: check which is which)' : ''}`,
      });
      before = await preflight(inputBytes, target, { ...preflightOptions, raster: false, path: source.path });
    }
  } else if (orderFinding) {
    refused.push({ code: 'page-order-mismatch', page: null, reason: `the pages are in another order than the layers: say --reorder (pages ${String(orderFinding.details?.order ?? '').split(',').join(', ')}) or give the order with --pages` });
  }
  const registry = await registryFrom(preflightOptions.profiles);
  const resolved = registry.resolve(target);
  const limits = { ...resolved.limits, ...preflightOptions.limits };
  let loaded: Awaited<ReturnType<typeof loadDocument>>;
  try {
    loaded = await loadDocument(inputBytes, decodeLimits);
  } catch (error) {
    return tooComplex(error);
  }
  const { doc, budget } = loaded;
  const pages = doc.getPages();
  const codesOn = (page: number) => new Set(before.findings.filter((f) => f.page === page && wanted(f.code)).map((f) => f.code));

  // 1. Geometry, page by page.
  for (const reportPage of before.pages) {
    const layer = resolved.layers[reportPage.index - 1];
    const page = pages[reportPage.index - 1];
    if (!layer || !page) continue;
    const codes = codesOn(reportPage.index);
    if (!GEOMETRY.some((c) => codes.has(c))) continue;
    const step = planGeometry(reportPage.index, codes, reportPage.rotate, opts, refused);
    if (!step) continue;
    applyGeometry(page, reportPage.rotate + step.turn, step.resize ? { width: mmToPt(layer.pageWidthMm), height: mmToPt(layer.pageHeightMm) } : null, step.fit);
    pushAll(changes, step.changes.map((action) => ({ ...action, page: reportPage.index })));
  }

  // 2. Colour: images and vector colour to sRGB; 3. images over the pixel cap.
  const wantColour = wanted('colour-space-not-rgb') && before.findings.some((f) => f.code === 'colour-space-not-rgb');
  const wantSmaller = wanted('image-too-large') && before.findings.some((f) => f.code === 'image-too-large');
  try {
    if (wantColour || wantSmaller) await fixImages(doc, budget, wantColour, wantSmaller ? limits.maxImagePixels : null, opts.jpegQuality, changes, refused);
    if (wantColour) await fixVectorColour(doc, budget, pages, changes, refused);
  } catch (error) {
    return tooComplex(error);
  }

  // 4. Size: recompress JPEG images until the file is under the cap.
  let bytes = await doc.save({ useObjectStreams: true });
  if (wanted('file-too-large') && (bytes.length > limits.maxFileBytes || before.findings.some((f) => f.code === 'file-too-large'))) {
    for (const quality of [85, 75, 65, 55]) {
      if (bytes.length <= limits.maxFileBytes) break;
      const n = await recompressJpegs(doc, quality);
      if (n === 0) break;
      bytes = await doc.save({ useObjectStreams: true });
      changes.push({ code: 'file-too-large', page: null, action: `recompressed ${n} JPEG image${n === 1 ? '' : 's'} at quality ${quality}: ${size(bytes.length)}` });
    }
    if (bytes.length > limits.maxFileBytes) refused.push({ code: 'file-too-large', page: null, reason: `still ${size(bytes.length)} after recompressing: reduce the images' pixel size or the number of pages` });
  }
  // Nothing changed: nothing to write (a re-saved copy would only look like a fix).
  if (!changes.length) return { bytes: null, changes, refused, before: original, after: null };
  if (!opts.recheck) return { bytes, changes, refused, before: original, after: null };
  const after = await preflight(bytes, target, { ...preflightOptions, path: opts.outPath ?? source.path });
  noteRemaining(changes, refused, after);
  return { bytes, changes, refused, before: original, after };
}

/** Whatever a fix set out to remove and is still there in the check after it is said (a refusal), not hidden. */
export function noteRemaining(changes: readonly Change[], refused: Refusal[], after: Report): void {
  const attempted = new Set(changes.map((c) => c.code));
  for (const f of after.findings) {
    if (attempted.has(f.code) && !refused.some((r) => r.code === f.code && (r.page === f.page || r.page === null))) {
      refused.push({ code: f.code, page: f.page, reason: `still there after the fix: ${f.message}` });
    }
  }
}

interface GeometryStep {
  turn: number;
  resize: boolean;
  fit: Fit;
  changes: Omit<Change, 'page'>[];
}

export function planGeometry(page: number, codes: Set<FindingCode>, rotate: number, opts: z.output<typeof FixOptionsSchema>, refused: Refusal[]): GeometryStep | null {
  const step: GeometryStep = { turn: 0, resize: false, fit: 'contain', changes: [] };
  if (codes.has('page-rotate-set')) step.changes.push({ code: 'page-rotate-set', action: `baked /Rotate ${rotate} into the page content; /Rotate is now 0` });
  if (codes.has('page-orientation-mismatch')) {
    if (!opts.rotate) {
      refused.push({ code: 'page-orientation-mismatch', page, reason: 'the page is sideways, but which way the design should turn cannot be known: say --rotate cw or --rotate ccw' });
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
      refused.push({ code: 'page-size-mismatch', page, reason: 'the page has other proportions than its layer: say how to fit it (--fit contain, cover or stretch)' });
    } else {
      step.resize = true;
      step.fit = opts.fit;
      step.changes.push({ code: 'page-size-mismatch', action: `fitted the page to the layer size (${opts.fit})` });
    }
  }
  return step.changes.length ? step : null;
}

function applyGeometry(page: PDFPage, turn: number, target: { width: number; height: number } | null, fit: Fit) {
  const context = page.doc.context;
  const media = rectOf(context, page.node.MediaBox()) ?? [0, 0, 612, 792];
  const crop = rectOf(context, page.node.get(N('CropBox')));
  const box: [number, number, number, number] = crop
    ? [Math.max(crop[0], media[0]), Math.max(crop[1], media[1]), Math.min(crop[2], media[2]), Math.min(crop[3], media[3])]
    : media;
  const uu = Number(page.node.get(N('UserUnit'))?.toString() ?? 1) || 1;
  const scaled = box.map((v) => v * uu) as [number, number, number, number];
  const m = multiply([uu, 0, 0, uu, 0, 0], pageMatrix(scaled, turn, target, fit));
  const turned = turn % 180 !== 0;
  const w = target ? target.width : turned ? scaled[3] - scaled[1] : scaled[2] - scaled[0];
  const h = target ? target.height : turned ? scaled[2] - scaled[0] : scaled[3] - scaled[1];
  transformPage(page, m, w, h);
}

async function fixImages(doc: PDFDocument, budget: DecodeBudget, toSrgb: boolean, maxPx: number | null, jpegQuality: number, changes: Change[], refused: Refusal[]) {
  const context = doc.context;
  const colourSpaces = new ColourSpaceResolver(context, (s) => decodeStream(context, s, { maxBytes: 64 * 1024 * 1024, budget }));
  const done = new Set<string>();
  const pages = doc.getPages();
  for (const [index, page] of pages.entries()) {
    for (const ref of imageRefs(doc, page)) {
      const key = ref.toString();
      if (done.has(key)) continue;
      done.add(key);
      const r = await rewriteImage(context, ref, colourSpaces, { toSrgb, maxPx, jpegQuality, budget });
      const code: FindingCode = toSrgb ? 'colour-space-not-rgb' : 'image-too-large';
      if (r.changed) changes.push({ code, page: index + 1, action: `image ${key}: ${r.what}` });
      else if (r.why) refused.push({ code, page: index + 1, reason: `image ${key} left as it is: ${r.why}` });
    }
  }
}

/** Image XObjects a page draws, through Form XObjects too. */
function imageRefs(doc: PDFDocument, page: PDFPage): PDFRef[] {
  const context = doc.context;
  const out: PDFRef[] = [];
  const seen = new Set<string>();
  const visit = (resources: ReturnType<typeof dictOf>, depth: number) => {
    const xobjects = getDict(context, resources, 'XObject');
    if (!xobjects || depth > 32) return;
    for (const [, value] of xobjects.entries()) {
      if (!(value instanceof PDFRef) || seen.has(value.toString())) continue;
      seen.add(value.toString());
      const dict = dictOf(context.lookup(value));
      const subtype = getName(context, dict, 'Subtype');
      if (subtype === 'Image') out.push(value);
      else if (subtype === 'Form') visit(getDict(context, dict, 'Resources'), depth + 1);
    }
  };
  visit(dictOf(resolve(context, page.node.Resources())), 0);
  return out;
}

async function fixVectorColour(doc: PDFDocument, budget: DecodeBudget, pages: PDFPage[], changes: Change[], refused: Refusal[]) {
  const context = doc.context;
  const rewriter = new VectorColourRewriter(context, budget);
  // Every content stream: pages (joined), and the Form XObjects they use.
  const jobs: { page: number; bytes: Uint8Array; resources: ReturnType<typeof dictOf>; write: (b: Uint8Array) => void }[] = [];
  const formsSeen = new Set<string>();
  for (const [index, page] of pages.entries()) {
    const resources = dictOf(resolve(context, page.node.Resources()));
    const contents = resolve(context, page.node.get(N('Contents')));
    const streams = contents instanceof PDFArray ? items(context, contents) : [contents];
    const parts = streams.filter((s): s is PDFRawStream => s instanceof PDFRawStream).map((s) => decodeStream(context, s, { maxBytes: 256 * 1024 * 1024, budget, what: 'page content' }));
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
        jobs.push({
          page: index + 1,
          bytes: decodeStream(context, form, { maxBytes: 256 * 1024 * 1024, budget, what: 'a form' }),
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

async function recompressJpegs(doc: PDFDocument, quality: number): Promise<number> {
  const sharp = (await import('sharp')).default;
  let n = 0;
  for (const [ref, obj] of doc.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream) || getName(doc.context, obj.dict, 'Subtype') !== 'Image') continue;
    if (getName(doc.context, obj.dict, 'Filter') !== 'DCTDecode' || getName(doc.context, obj.dict, 'ColorSpace') !== 'DeviceRGB') continue;
    const data = await sharp(obj.contents, { limitInputPixels: false }).jpeg({ quality }).toBuffer();
    if (data.length >= obj.contents.length) continue;
    const dict = obj.dict.clone(doc.context);
    dict.set(PDFName.of('Length'), doc.context.obj(data.length));
    doc.context.assign(ref, PDFRawStream.of(dict, new Uint8Array(data)));
    n++;
  }
  return n;
}

const size = formatBytes;
