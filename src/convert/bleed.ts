/**
 * Bleed by extension: a page made at the trim size (or between it and the layer size) becomes its
 * layer's size, its design keeping its size and its place relative to the trim, and the bleed
 * strips filled by mirroring the design's edges — as pdfToolbox's and PitStop's "add bleed by
 * mirroring" do. The page's content becomes one Form XObject (its content decoded under the file's
 * decode budget; its own graphics state kept apart by the form), drawn once in place and again
 * reflected across each edge and corner, clipped to the page: vector content stays vector, and
 * nothing is rasterised or re-encoded.
 */
import { multiply } from '../pdf/matrix.js';
import { N, PDFArray, rectOf, resolve, items } from '../pdf/objects.js';
import type { DecodeBudget } from '../pdf/decode-budget.js';
import { PDFName, PDFNumber, PDFRawStream, PDFDict, type PDFPage } from '../pdf/pdf-lib.js';
import { decodeStream, joinContentStreams } from '../pdf/streams.js';
import { turnClockwise, toOrigin } from './geometry.js';
import { MIRROR_OVERLAP_PT, mirrorTiles } from './mirror.js';

const num = (n: number) => (Math.abs(n) < 1e-9 ? '0' : String(Math.round(n * 10000) / 10000));

/**
 * Extends a page to `target` (pt) by mirroring its edges, its /Rotate and /UserUnit baked in, the
 * design centred (a trim-size page sits in the middle of its layer). Throws StreamDecodeError
 * for content that cannot be decoded and BudgetExceededError past the budget.
 * @returns the bleed added on each side, in pt (left/right and top/bottom)
 * @example
 * extendBleed(page, 0, { width: mmToPt(560), height: mmToPt(750) }, budget); // { x: 28.35, y: 28.35 }
 */
export function extendBleed(page: PDFPage, rotate: number, target: { width: number; height: number }, budget: DecodeBudget): { x: number; y: number } {
  const context = page.doc.context;
  const media = rectOf(context, page.node.get(N('MediaBox'))) ?? [0, 0, 612, 792];
  const crop = rectOf(context, page.node.get(N('CropBox')));
  const box: [number, number, number, number] = crop ? [Math.max(crop[0], media[0]), Math.max(crop[1], media[1]), Math.min(crop[2], media[2]), Math.min(crop[3], media[3])] : media;
  const uu = Number(page.node.get(N('UserUnit'))?.toString() ?? 1) || 1;
  // The page's content, decoded under the budget, as one form whose box is the page's visible box.
  const contents = resolve(context, page.node.get(N('Contents')));
  const streams = contents instanceof PDFArray ? items(context, contents) : [contents];
  const parts = streams.filter((s): s is PDFRawStream => s instanceof PDFRawStream).map((s) => decodeStream(context, s, { maxBytes: 256 * 1024 * 1024, budget, what: 'page content' }));
  const form = context.flateStream(joinContentStreams(parts.length ? parts : [new Uint8Array(0)]), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: box,
  });
  const resources = page.node.Resources();
  if (resources) form.dict.set(PDFName.of('Resources'), resources);
  const group = page.node.get(N('Group'));
  if (group) form.dict.set(PDFName.of('Group'), group);
  const formRef = context.register(form);
  // Box to the origin, /UserUnit, then the turn of /Rotate: the design upright at [0, w] × [0, h].
  const w0 = (box[2] - box[0]) * uu;
  const h0 = (box[3] - box[1]) * uu;
  const turn = ((rotate % 360) + 360) % 360;
  const base = multiply(multiply(toOrigin(box), [uu, 0, 0, uu, 0, 0]), turnClockwise(turn, w0, h0));
  const w = turn % 180 ? h0 : w0;
  const h = turn % 180 ? w0 : h0;
  const placed = { x: (target.width - w) / 2, y: (target.height - h) / 2, width: w, height: h };
  // The mirrored copies reach OVERLAP_PT under the design's edges (the design is drawn last, over
  // them), so no hairline of paper shows where anti-aliased edges meet in a preview of 25 ppi or more.
  const [self, ...around] = mirrorTiles(placed, target.width, target.height, MIRROR_OVERLAP_PT);
  const lines = [`q 0 0 ${num(target.width)} ${num(target.height)} re W n`];
  for (const tile of around) lines.push(`q ${multiply(base, tile).map(num).join(' ')} cm /PPBleed0 Do Q`);
  lines.push(`q ${[placed.x, placed.y, w, h].map(num).join(' ')} re W n ${multiply(base, self!).map(num).join(' ')} cm /PPBleed0 Do Q`);
  lines.push('Q');
  const content = context.register(context.flateStream(lines.join('\n')));
  const pageResources = PDFDict.withContext(context);
  pageResources.set(PDFName.of('XObject'), context.obj({ PPBleed0: formRef }));
  page.node.set(PDFName.of('Resources'), pageResources);
  page.node.set(PDFName.of('Contents'), content);
  page.node.set(PDFName.of('MediaBox'), context.obj([0, 0, target.width, target.height]));
  // No TrimBox: the service prints the whole page, its layer's size, and knows where its trim is.
  for (const name of ['CropBox', 'TrimBox', 'BleedBox', 'ArtBox']) page.node.delete(PDFName.of(name));
  page.node.set(PDFName.of('Rotate'), PDFNumber.of(0));
  page.node.delete(PDFName.of('UserUnit'));
  return { x: placed.x, y: placed.y };
}
