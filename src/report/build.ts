import type { WrittenPreviewFormat } from '../model/preview.js';
import { createHash } from 'node:crypto';
import type { DocumentFacts, ImageFacts, PageFacts } from '../pdf/facts.js';
import { displayPoint } from '../pdf/matrix.js';
import { finite, ptToMm, round } from '../pdf/units.js';
import type { ResolvedTarget } from '../profile/registry.js';
import type { Limits } from '../profile/schema.js';
import type { FindingCode } from '../model/codes.js';
import { compareFindings } from '../rules/index.js';
import type { Finding } from '../model/finding.js';
import type { RasterFacts } from '../raster/facts.js';
import { ppiValue } from '../rules/check-image-resolution.js';
import { printScaleOf } from '../rules/check-page-size.js';
import { fineDetail, seamCrossings } from '../rules/check-marks.js';
import { overUnpainted, unpaintedArea } from '../rules/check-unpainted.js';
import { edgeGapMm } from '../rules/check-page-pixels.js';
import type { LayerSpec } from '../profile/registry.js';
import { packageVersion } from '../util/package-root.js';
import { REPORT_SCHEMA_VERSION, type Report, type ReportImage, type ReportPage, type Verdict } from './schema.js';
import { ordinal, withoutFormatControls, withoutFormatControlsDeep } from '../util/text.js';

/** fail when any finding is an error, warn when any is a warning, else pass. */
export function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'error')) return 'fail';
  if (findings.some((f) => f.severity === 'warning')) return 'warn';
  return 'pass';
}

export interface ReportInput {
  file: { path: string | null; bytes: number; sha256: string };
  facts: DocumentFacts;
  target: ResolvedTarget;
  findings: Finding[];
  limits: Limits;
  /** Per-call severity overrides in force (part of the profile digest). */
  severities?: Readonly<Record<string, string>>;
  /** The call's policy (part of the digest when not empty). */
  policy?: Readonly<Record<string, string>>;
  /** How the call's rules met the profile's (part of the digest when set): bounded, or a default policy. */
  settled?: { tightenOnly?: boolean | undefined; defaultPolicy?: Readonly<Record<string, string>> | undefined };
  raster?: ReadonlyMap<number, RasterFacts>;
  previews?: ReadonlyMap<number, PreviewRef>;
  totalMs?: number;
}

/** A page's preview as the report names it. */
export interface PreviewRef {
  file: string | null;
  format: WrittenPreviewFormat;
  widthPx: number;
  heightPx: number;
}

/** Digest of everything that decides a verdict besides the file: profile, variant, limits, severities, policy. */
export function profileDigest(
  target: ResolvedTarget,
  limits: Limits,
  severities: Readonly<Record<string, string>>,
  policy: Readonly<Record<string, string>> = {},
  settled: ReportInput['settled'] = {},
): string {
  // Sorted explicitly: pdf.js's legacy build polyfills JSON.stringify, whose array replacer then no longer fixes key order.
  const sorted = (o: object) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const parts = [JSON.stringify(rulesOf(target.profile)), target.variant.id, sorted(limits), sorted(severities)];
  // A call's policy joins the digest only when it says something, so digests of calls without one stay as they were.
  if (Object.keys(policy).length) parts.push(sorted(policy));
  // Likewise how the rules met: only when a call bounded them or gave a default policy.
  if (settled.tightenOnly && (Object.keys(severities).length || Object.keys(policy).length)) parts.push('tighten-only');
  if (settled.defaultPolicy && !target.profile.policy) parts.push(`default:${sorted(settled.defaultPolicy)}`);
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/**
 * The profile as far as it decides verdicts: without what only names and draws its parts (names in
 * other languages, panel shapes for mockups), which never change a verdict — a profile that gains
 * translations keeps its digest.
 */
function rulesOf(profile: ResolvedTarget['profile']): object {
  // Key order kept: the digest is of the JSON text.
  return Object.fromEntries(
    Object.entries(profile)
      .filter(([key]) => key !== 'names')
      .map(([key, value]) => [key, key === 'layers' ? profile.layers.map(({ names: _n, shape: _s, ...layer }) => layer) : value]),
  );
}

/** The report with more findings (e.g. about its download) merged in, counts and verdict redone. */
export function withFindings(report: Report, extra: readonly Finding[], source?: Report['source']): Report {
  const findings = [...withoutFormatControlsDeep(extra), ...report.findings].sort(compareFindings);
  const counts = { error: 0, warning: 0, info: 0 };
  const rules: Partial<Record<FindingCode, number>> = {};
  for (const f of findings) {
    counts[f.severity]++;
    rules[f.code] = (rules[f.code] ?? 0) + 1;
  }
  const { pdf, pages, timings, ...head } = report;
  return {
    ...head,
    ...(source ? { source } : {}),
    verdict: verdictOf(findings),
    counts,
    rules: Object.fromEntries(Object.entries(rules).sort(([a], [b]) => ordinal(a, b))),
    pdf,
    pages,
    findings,
    ...(timings ? { timings } : {}),
  };
}

/** Assembles the report. Deterministic: the same input gives the same object, timings aside. */
export function buildReport({ file, facts, target, findings, limits, severities = {}, policy = {}, settled = {}, raster, previews, totalMs }: ReportInput): Report {
  const counts = { error: 0, warning: 0, info: 0 };
  const rules: Partial<Record<FindingCode, number>> = {};
  for (const f of findings) {
    counts[f.severity]++;
    rules[f.code] = (rules[f.code] ?? 0) + 1;
  }
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: 'print-preflight', version: packageVersion() },
    // Names and messages quote the file (its name, font and colour names): no format controls, so
    // a name cannot read differently from what it holds (U+202E) wherever the report is shown.
    file: { ...file, path: file.path === null ? null : withoutFormatControls(file.path) },
    product: target.profile.id,
    variant: target.variant.id,
    sku: target.sku,
    profileVersion: target.profile.version,
    profileDigest: profileDigest(target, limits, severities, policy, settled),
    limits: {
      bleedMm: limits.bleedMm,
      toleranceMm: limits.toleranceMm,
      minPpi: limits.minPpi,
      minPpiError: limits.minPpiError,
      maxImagePixels: limits.maxImagePixels,
      maxFileBytes: limits.maxFileBytes,
      safeMarginMm: limits.safeMarginMm ?? null,
      minLineWidthPt: limits.minLineWidthPt,
      minTextSizePt: limits.minTextSizePt,
      minJpegQuality: limits.minJpegQuality,
      infoJpegQuality: limits.infoJpegQuality,
      minUpscaleFactor: limits.minUpscaleFactor,
      maxUnpaintedShare: limits.maxUnpaintedShare,
    },
    verdict: verdictOf(findings),
    counts,
    rules: Object.fromEntries(Object.entries(rules).sort(([a], [b]) => ordinal(a, b))),
    pdf: { version: facts.pdfVersion, pageCount: facts.pageCount, encrypted: facts.encryption !== null, activeContent: facts.activeContent },
    pages: facts.pages.map((p) => reportPage(p, target, limits, raster?.get(p.index), previews?.get(p.index))),
    findings: withoutFormatControlsDeep(findings),
    ...(totalMs !== undefined
      ? {
          timings: {
            totalMs: round(totalMs, 1),
            ...(raster?.size ? { pages: [...raster.values()].map((r) => ({ index: r.index, rasterMs: r.ms })) } : {}),
          },
        }
      : {}),
  };
}

function reportPage(page: PageFacts, target: ResolvedTarget, limits: Limits, raster: RasterFacts | undefined, preview: PreviewRef | undefined): ReportPage {
  const layer = target.layers[page.index - 1] ?? null;
  const scale = printScaleOf(page, layer, limits);
  const shown = withoutFormatControlsDeep({
    images: page.images.map((i) => reportImage(i, page, scale, raster)),
    // The font-program facts speak through font-unusable; the page lists the fonts as before.
    fonts: page.fonts.map((f) => ({ name: f.name, ref: f.ref ?? null, baseFont: f.baseFont, subtype: f.subtype, embedded: f.embedded })),
    notes: page.notes,
  });
  return {
    index: page.index,
    layer: layer?.id ?? null,
    widthMm: round(page.widthMm, 2),
    heightMm: round(page.heightMm, 2),
    expectedWidthMm: layer?.pageWidthMm ?? null,
    expectedHeightMm: layer?.pageHeightMm ?? null,
    rotate: page.rotate,
    userUnit: page.userUnit,
    printScale: round(scale, 4),
    boxes: {
      media: roundRect(page.boxes.media)!,
      crop: roundRect(page.boxes.crop),
      trim: roundRect(page.boxes.trim),
      bleed: roundRect(page.boxes.bleed),
      art: roundRect(page.boxes.art),
    },
    images: shown.images,
    fonts: shown.fonts,
    colours: page.colours.map((c) => ({ use: c.use, colourSpace: withoutFormatControls(c.colourSpace.label), family: c.colourSpace.family, count: c.count })),
    notes: shown.notes,
    safeMarginMm: layer?.safeMarginMm ?? null,
    marked: withoutFormatControlsDeep(markedObjects(page, layer, limits)),
    raster: raster
      ? {
          method: raster.method,
          widthPx: raster.widthPx,
          heightPx: raster.heightPx,
          inkCoverage: round(raster.inkCoverage, 4),
          // As page-edge-gap measures them (never wider than the page).
          edgeGapMm: {
            top: round(edgeGapMm(raster, page, 'top'), 1),
            right: round(edgeGapMm(raster, page, 'right'), 1),
            bottom: round(edgeGapMm(raster, page, 'bottom'), 1),
            left: round(edgeGapMm(raster, page, 'left'), 1),
          },
          warnings: withoutFormatControlsDeep(raster.warnings),
          ...(raster.approximate ? { approximate: withoutFormatControls(raster.approximate) } : {}),
          ...unpaintedOf(page, layer, limits, raster),
        }
      : null,
    preview: preview ?? null,
  };
}

/** A rectangle in default user space → mm from the top-left of the page as shown (after /Rotate). */
export function toDisplayMm(r: readonly number[], page: PageFacts): [number, number, number, number] {
  const k = ptToMm(page.userUnit);
  const a = displayPoint(r[0]!, r[1]!, page.checkedBox, page.rotate, k);
  const b = displayPoint(r[2]!, r[3]!, page.checkedBox, page.rotate, k);
  return [round(Math.min(a[0], b[0]), 1), round(Math.min(a[1], b[1]), 1), round(Math.max(a[0], b[0]), 1), round(Math.max(a[1], b[1]), 1)];
}

/** What the marks-based findings point at, for the overlay (the same functions the checks use). */
function markedObjects(page: PageFacts, layer: LayerSpec | null, limits: Limits): ReportPage['marked'] {
  const fine = fineDetail(page, layer, limits);
  const seam = seamCrossings(page, layer, limits)?.objects ?? [];
  return [...seam, ...fine.lines, ...fine.texts];
}

function unpaintedOf(page: PageFacts, layer: LayerSpec | null, limits: Limits, raster: RasterFacts): { unpaintedShare: number; unpaintedAreasMm: [number, number, number, number][] } {
  const found = unpaintedArea(page, layer, limits, raster);
  return { unpaintedShare: round(found?.share ?? 0, 4), unpaintedAreasMm: found && overUnpainted(found.share, limits.maxUnpaintedShare) ? found.areas : [] };
}

function reportImage(image: ImageFacts, page: PageFacts, scale: number, raster: RasterFacts | undefined): ReportImage {
  const measured = raster?.imageDetail?.find((d) => d.ref === image.ref && !image.inline);
  const ppi = image.ppiX === null || image.ppiY === null ? null : Math.min(image.ppiX, image.ppiY);
  return {
    ref: image.ref,
    name: image.name,
    inline: image.inline,
    via: image.via,
    widthPx: image.widthPx,
    heightPx: image.heightPx,
    colourSpace: image.colourSpace?.label ?? 'ImageMask',
    colourFamily: image.colourSpace?.family ?? 'ImageMask',
    components: image.colourSpace?.components ?? 1,
    bitsPerComponent: image.bitsPerComponent,
    filters: image.filters,
    placedWidthMm: round(ptToMm(image.placedWidthPt), 2),
    placedHeightMm: round(ptToMm(image.placedHeightPt), 2),
    bboxMm: toDisplayMm(image.bbox, page),
    ppi: ppi === null ? null : ppiValue(ppi),
    // Held within the doubles: 1e300 ppi on a page the service enlarges 1e10 times.
    printedPpi: ppi === null ? null : ppiValue(finite(ppi / scale)),
    ppiX: image.ppiX === null ? null : round(image.ppiX, 1),
    ppiY: image.ppiY === null ? null : round(image.ppiY, 1),
    jpegQuality: image.jpegQuality?.quality ?? null,
    ...(measured ? { upscaleFactor: measured.factor === null ? null : round(measured.factor, 2) } : {}),
  };
}

function roundRect(r: readonly number[] | null): [number, number, number, number] | null {
  return r ? [round(r[0]!, 3), round(r[1]!, 3), round(r[2]!, 3), round(r[3]!, 3)] : null;
}
