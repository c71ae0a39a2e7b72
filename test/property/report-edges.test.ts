/**
 * Every report valid against its schema whatever the numbers (issue 46): facts of a document whose
 * numbers lie at the edges of IEEE doubles — ±0, denormals, 1e-308, 1e308, MAX_VALUE, 2^53 ± 1,
 * 0.9999999999, negative sizes, zero matrices whose products make 0/0 — go through what `check`
 * does after inspection: the rules (runChecks), the report (buildReport) and a customer locale
 * (localizeReport). The JSON written is validated against schemas/report.schema.json by ajv, and no
 * message, expected or actual writes NaN, Infinity or undefined — nor the text and HTML renderings.
 *
 * The facts are what a worker may send: each document passes DocumentFactsSchema and each raster
 * RasterFactsSchema (finite numbers, whole pixels), as the pool checks at its boundary — the edge
 * cases are in what the rules compute from them (a page 0 mm high, an image placed 1e-300 pt wide,
 * 1e308 × 1e308 areas, factors of 0).
 *
 * FC_RUNS sets the number of documents (default 300, a few seconds); FC_SEED replays a run (the seed
 * is printed before it starts).
 */
import { page as factsPage } from '../helpers/facts.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../src/model/locales.js';
import { localizeReport } from '../../src/messages/catalogue.js';
import { DocumentFactsSchema, type DocumentFacts, type ImageFacts, type PageFacts } from '../../src/pdf/facts.js';
import { loadProfiles } from '../../src/profile/load.js';
import { LimitsOverrideSchema, type Limits } from '../../src/profile/schema.js';
import { RasterFactsSchema, type RasterFacts } from '../../src/raster/facts.js';
import { buildReport } from '../../src/report/build.js';
import { renderHtml } from '../../src/report/html.js';
import { renderText } from '../../src/report/text.js';
import { runChecks } from '../../src/rules/index.js';
import { publishedErrors } from '../helpers/contracts.js';
import { CS } from '../helpers/facts.js';

const RUNS = Number(process.env.FC_RUNS ?? 300);
/** The run's seed: FC_SEED, or drawn now and printed before the run. */
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Words a report must never write: a number that is none, or a value never set. */
const UNWRITTEN = /NaN|Infinity|undefined/;

/** Finite doubles at the edges: zeros, denormals, the normal limits, 2^53 ± 1, a hair off 1, negatives. */
const EDGES = [
  0,
  -0,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  2.2250738585072014e-308,
  1e-308,
  1e-300,
  1e-9,
  0.9999999999,
  1,
  1.0000000001,
  -1,
  72,
  2040,
  1e15,
  2 ** 53 - 1,
  2 ** 53 + 1,
  1e300,
  1e308,
  Number.MAX_VALUE,
  -1e308,
  -Number.MAX_VALUE,
];
const edge = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...EDGES) }, { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) });
const positiveEdge = edge.map((x) => Math.abs(x)).filter((x) => x > 0);
/** Shares 0–1 at their edges. */
const share = fc.oneof(fc.constantFrom(0, -0, Number.MIN_VALUE, 1e-308, 0.0001, 0.01, 0.9999999999, 1), fc.double({ min: 0, max: 1, noNaN: true }));
/** Whole counts at their edges (pixels, bytes), within safe integers. */
const count = fc.oneof(fc.constantFrom(0, 1, 2, 15_000, 15_001, 2 ** 31 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER), fc.nat());
const positiveCount = count.filter((n) => n > 0);
const rect = fc.tuple(edge, edge, edge, edge);
const matrix = fc.tuple(edge, edge, edge, edge, edge, edge);

/** The resolution the inspector gives an image of `px` pixels placed over `pt` points (pdf/content/images.ts). */
const ppi = (px: number, pt: number) => (pt > 1e-9 ? (px * 72) / pt : null);

const imageArb: fc.Arbitrary<ImageFacts> = fc
  .record({
    widthPx: count,
    heightPx: count,
    ctm: matrix,
    bbox: rect,
    placedWidthPt: positiveEdge,
    placedHeightPt: fc.oneof(positiveEdge, fc.constant(0)),
    quality: fc.option(fc.integer({ min: 1, max: 100 })),
    ref: fc.constantFrom('10 0 R', '11 0 R'),
  })
  .map((r) => ({
    ref: r.ref,
    name: 'Im1',
    inline: false,
    via: [],
    widthPx: r.widthPx,
    heightPx: r.heightPx,
    bitsPerComponent: 8,
    filters: ['DCTDecode'],
    colourSpace: CS.rgb!,
    imageMask: false,
    hasSMask: false,
    jpegQuality: r.quality === null ? null : { quality: r.quality, exact: r.quality % 2 === 0 },
    ctm: r.ctm,
    bbox: r.bbox,
    placedWidthPt: r.placedWidthPt,
    placedHeightPt: r.placedHeightPt,
    ppiX: ppi(r.widthPx, r.placedWidthPt),
    ppiY: ppi(r.heightPx, r.placedHeightPt),
  }));

const marksArb = fc.record({
  texts: fc.array(fc.record({ box: rect, sizePt: edge, text: fc.constantFrom('', 'Hi') }), { maxLength: 3 }),
  strokes: fc.array(fc.record({ box: rect, widthPt: edge }), { maxLength: 3 }),
  shapes: fc.array(fc.record({ box: rect, kind: fc.constantFrom('path' as const, 'image' as const, 'shading' as const) }), { maxLength: 2 }),
  dropped: count,
  ink: share,
  images: share,
});

const pageArb = (index: number): fc.Arbitrary<PageFacts> =>
  fc
    .record({
      media: rect,
      checked: rect,
      trim: fc.option(rect),
      bleed: fc.option(rect),
      rotate: fc.constantFrom(0 as const, 90 as const, 180 as const, 270 as const),
      userUnit: positiveEdge,
      widthMm: edge,
      heightMm: edge,
      images: fc.array(imageArb, { maxLength: 2 }),
      marks: fc.option(marksArb),
    })
    .map((p) => ({
      index,
      ref: null,
      boxes: { media: p.media, crop: null, trim: p.trim, bleed: p.bleed, art: null },
      checkedBox: p.checked,
      rotate: p.rotate,
      userUnit: p.userUnit,
      widthMm: p.widthMm,
      heightMm: p.heightMm,
      images: p.images,
      colours: [],
      fonts: [],
      notes: [],
      tooComplex: false,
      ...(p.marks ? { marks: p.marks } : {}),
    }));

const rasterArb = (index: number): fc.Arbitrary<RasterFacts> =>
  fc
    .record({
      widthPx: positiveCount,
      heightPx: positiveCount,
      inkCoverage: share,
      gaps: fc.tuple(count, count, count, count),
      unpainted: fc.option(
        fc.record({
          share,
          cols: fc.integer({ min: 1, max: 3 }),
          rows: fc.integer({ min: 1, max: 3 }),
          fill: fc.integer({ min: 0, max: 255 }),
          runs: fc.option(fc.array(fc.integer({ min: 0, max: 65535 }), { minLength: 3, maxLength: 9 })),
        }),
      ),
      detail: fc.option(fc.record({ factor: fc.option(edge), factorHigh: fc.option(edge), evidence: edge, ref: fc.constantFrom('10 0 R', '11 0 R') })),
    })
    .map((r) => ({
      index,
      widthPx: r.widthPx,
      heightPx: r.heightPx,
      method: 'pdfium' as const,
      ms: 1,
      warnings: [],
      inkCoverage: r.inkCoverage,
      edgeGapPx: { top: r.gaps[0], right: r.gaps[1], bottom: r.gaps[2], left: r.gaps[3] },
      ...(r.unpainted
        ? {
            unpainted: {
              share: r.unpainted.share,
              cols: r.unpainted.cols,
              rows: r.unpainted.rows,
              cells: Buffer.alloc(r.unpainted.cols * r.unpainted.rows, r.unpainted.fill).toString('base64'),
              ...(r.unpainted.runs ? { runs: Buffer.from(new Uint16Array(r.unpainted.runs).buffer).toString('base64') } : {}),
            },
          }
        : {}),
      ...(r.detail
        ? { imageDetail: [{ ref: r.detail.ref, factor: r.detail.factor, factorX: r.detail.factor, factorY: r.detail.factor, factorHigh: r.detail.factorHigh, evidence: r.detail.evidence }] }
        : {}),
    }));

/** Limits at the edges of what the profile schema allows: each limit its default, 0, its bound, a denormal… */
const LIMIT_EDGES = [0, Number.MIN_VALUE, 1e-308, 0.9999999999, 1, 1.0000000001, 2, 100, 1000, 10_000, 1_000_000, 10_000_000_000];
const limitsArb = fc.dictionary(fc.constantFrom(...Object.keys(LimitsOverrideSchema.shape)), fc.constantFrom(...LIMIT_EDGES), { maxKeys: 6 }).map((d) => {
  // Only what the schema takes (a profile or a call cannot ask for more).
  const ok = Object.entries(d).filter(([key, value]) => LimitsOverrideSchema.safeParse({ [key]: value }).success);
  return Object.fromEntries(ok) as Partial<Limits>;
});

const TARGETS = [
  { product: 'duvet-cover', variant: '200x200' },
  { product: 't-shirt', variant: 'M' },
  { product: 'curtains', variant: '140x260' },
];

const caseArb = fc.integer({ min: 1, max: 3 }).chain((n) =>
  fc.record({
    pages: fc.tuple(...Array.from({ length: n }, (_, i) => pageArb(i + 1))),
    rasters: fc.tuple(...Array.from({ length: n }, (_, i) => fc.option(rasterArb(i + 1)))),
    bytes: count,
    limits: limitsArb,
    target: fc.constantFrom(...TARGETS),
    locale: fc.option(fc.constantFrom(...LOCALES)),
  }),
);

const registry = loadProfiles();

/** The report's JSON for one generated case, through what `check` runs after inspection, and its problems. */
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** Paths of the numbers in a value that are not finite (JSON would write them as null). */
function nonFinite(value: unknown, path = ''): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path || '(root)'} = ${value}`];
  if (Array.isArray(value)) return value.flatMap((v, i) => nonFinite(v, `${path}/${i}`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => nonFinite(v, `${path}/${k}`));
  return [];
}

async function reportOf(c: Case): Promise<{ json: string; problems: string[] }> {
  const facts: DocumentFacts = { bytes: c.bytes, pdfVersion: '1.7', encryption: null, problems: [], activeContent: [], pageCount: c.pages.length, pages: c.pages };
  const problems: string[] = [];
  // The generator makes only facts a worker may send.
  const valid = DocumentFactsSchema.safeParse(facts);
  if (!valid.success) problems.push(`generated facts invalid: ${valid.error.message}`);
  const raster = new Map(c.rasters.flatMap((r) => (r ? [[r.index, r] as const] : [])));
  for (const r of raster.values()) if (!RasterFactsSchema.safeParse(r).success) problems.push('generated raster facts invalid');
  const target = (await registry).resolve(c.target);
  const limits = { ...target.limits, ...c.limits };
  const findings = runChecks({ facts, target: { ...target, limits }, limits, raster });
  let report = buildReport({ file: { path: 'edges.pdf', bytes: c.bytes, sha256: '0'.repeat(64) }, facts, target, findings, limits, raster });
  if (c.locale) report = await localizeReport(report, target.profile, c.locale);
  const json = JSON.stringify(report);
  problems.push(...publishedErrors('report', json));
  problems.push(...nonFinite(report).map((p) => `not a finite number: ${p}`));
  for (const f of report.findings) {
    // Every text of the finding: its message, expected, actual and the customer's wording in the locale.
    const text = JSON.stringify(f);
    if (UNWRITTEN.test(text)) problems.push(`${f.code} writes ${UNWRITTEN.exec(text)![0]}: ${text.slice(0, 600)}`);
  }
  // The renderings a person reads: the terminal's text and report.html.
  for (const [what, text] of [
    ['text', renderText(report)],
    ['html', renderHtml(report)],
  ] as const) {
    const m = UNWRITTEN.exec(text);
    if (m) problems.push(`the ${what} rendering writes ${m[0]}: …${text.slice(Math.max(0, m.index - 200), m.index + 100)}…`);
  }
  return { json, problems };
}

/** A page of the given size with its defaults and empty boxes (sizes at the edges make no boxes), for the regression examples. */
function edgePage(index: number, widthMm: number, heightMm: number, extra: Partial<PageFacts> = {}): PageFacts {
  return factsPage(index, widthMm, heightMm, { boxes: { media: [0, 0, 0, 0], crop: null, trim: null, bleed: null, art: null }, checkedBox: [0, 0, 0, 0], ...extra });
}
function edgeImage(extra: Partial<ImageFacts>): ImageFacts {
  return {
    ref: '10 0 R',
    name: 'Im1',
    inline: false,
    via: [],
    widthPx: 0,
    heightPx: 0,
    bitsPerComponent: 8,
    filters: ['DCTDecode'],
    colourSpace: CS.rgb!,
    imageMask: false,
    hasSMask: false,
    jpegQuality: null,
    ctm: [0, 0, 0, 0, 0, 0],
    bbox: [0, 0, 0, 0],
    placedWidthPt: 0,
    placedHeightPt: 0,
    ppiX: null,
    ppiY: null,
    ...extra,
  };
}
function edgeRaster(index: number, extra: Partial<RasterFacts>): RasterFacts {
  return { index, widthPx: 1, heightPx: 1, method: 'pdfium', ms: 1, warnings: [], inkCoverage: 1, edgeGapPx: { top: 0, right: 0, bottom: 0, left: 0 }, ...extra };
}
const DUVET = { product: 'duvet-cover', variant: '200x200' };
const one = (page: PageFacts, raster: RasterFacts | null = null): Case => ({ pages: [page], rasters: [raster], bytes: 1000, limits: {}, target: DUVET, locale: null });

/** What the property found, each fixed in src and kept here: the report they made was invalid or wrote Infinity or NaN. */
const FOUND: [string, Case][] = [
  ['a white band of 2^32 px on a raster 1 px across (edgeGapMm -Infinity)', one(edgePage(1, 1e308, 1), edgeRaster(1, { edgeGapPx: { top: 0, right: 0, bottom: 0, left: 2 ** 32 } }))],
  ['the edge-gap details of a page 1e308 mm high (bottomMm Infinity)', one(edgePage(1, 2040, 1e308), edgeRaster(1, { edgeGapPx: { top: 0, right: 0, bottom: Number.MAX_SAFE_INTEGER, left: 0 } }))],
  ['an image box on a page of /UserUnit 1e300 (bboxMm -Infinity)', one(edgePage(1, 0, 0, { userUnit: 1e300, images: [edgeImage({ bbox: [0, 0, 0, 509582305.9452234], placedWidthPt: 1e-9 })] }))],
  [
    'the pixels advised for an image placed 1e308 pt tall (neededHeightPx NaN)',
    one(edgePage(1, 0, 0, { userUnit: 2 ** 53, images: [edgeImage({ placedWidthPt: 1.0000000000000003e-9, placedHeightPt: Number.MAX_VALUE, ppiX: 0, ppiY: 0 })] })),
  ],
  [
    'an image placed 1e308 pt tall on a page printed at 204,000 % (printedHeightMm Infinity)',
    one(edgePage(1, 1.0000000001, 1, { images: [edgeImage({ placedWidthPt: 2 ** 53, placedHeightPt: 1e308, ppiX: 0, ppiY: 0 })] })),
  ],
  [
    'JPEG blocks of an image at 4e-307 ppi (blockMm Infinity)',
    one(
      edgePage(1, 0, 0, {
        images: [edgeImage({ widthPx: 1, heightPx: 1, placedWidthPt: Number.MAX_VALUE, placedHeightPt: 1, ppiX: 4.005132945312963e-307, ppiY: 72, jpegQuality: { quality: 1, exact: false } })],
      }),
    ),
  ],
  [
    'an upscale factor of -5e-324 (native size -Infinity px)',
    one(
      edgePage(1, 0, 0, { images: [edgeImage({ ref: '11 0 R', heightPx: 1, placedWidthPt: Number.MAX_VALUE, placedHeightPt: Number.MAX_VALUE, ppiX: 0, ppiY: 4.005132945312963e-307 })] }),
      edgeRaster(1, { imageDetail: [{ ref: '11 0 R', factor: -5e-324, factorX: -5e-324, factorY: -5e-324, factorHigh: 1e300, evidence: 0 }] }),
    ),
  ],
  [
    'the unpainted share of a page 1e308 mm square (Infinity / Infinity)',
    one(
      edgePage(1, 1e308, 1e308),
      edgeRaster(1, { unpainted: { share: 0.5, cols: 1, rows: 1, cells: Buffer.from([200]).toString('base64'), runs: Buffer.from(new Uint16Array([0, 0, 1]).buffer).toString('base64') } }),
    ),
  ],
  ['a page 2.2e-308 mm square, which no scale prints (printScale Infinity, "scale it up to Infinity %")', one(edgePage(1, 2.2250738585072014e-308, 2.2250738585072014e-308))],
  ['report.html’s overlay of a page -1.8e308 mm high (viewBox -Infinity)', one(edgePage(1, 0, -Number.MAX_VALUE), edgeRaster(1, {}))],
  [
    'an image at 2^53 ppi on a page 1e300 mm square, printed at 2e-295 % (printedPpi Infinity)',
    one(
      edgePage(1, 1e300, 1e300, {
        images: [
          edgeImage({ widthPx: Number.MAX_SAFE_INTEGER, heightPx: Number.MAX_SAFE_INTEGER, placedWidthPt: 72, placedHeightPt: 72, ppiX: Number.MAX_SAFE_INTEGER, ppiY: Number.MAX_SAFE_INTEGER }),
        ],
      }),
    ),
  ],
  [
    'a line -1.8e308 pt wide on a page printed at 204,000 % (printedPt -Infinity)',
    one(
      edgePage(1, 1, 1, {
        userUnit: Number.MAX_VALUE,
        marks: { texts: [], strokes: [{ box: [0, 0, 1e300, -1.545905876684e-310], widthPt: -Number.MAX_VALUE }], shapes: [], dropped: 0, ink: 0, images: 0 },
      }),
    ),
  ],
];

describe('reports at the edges of IEEE doubles: what the property found', () => {
  it.each(FOUND)('%s', async (_name, c) => {
    expect((await reportOf(c)).problems).toEqual([]);
  });
});

describe('reports at the edges of IEEE doubles (property)', () => {
  it(`every report is valid against its schema and writes no NaN, Infinity or undefined (FC_SEED=${SEED})`, async () => {
    console.log(`report-edges property: FC_SEED=${SEED} FC_RUNS=${RUNS} replays this run`);
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { problems } = await reportOf(c);
        expect(problems).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);
});
