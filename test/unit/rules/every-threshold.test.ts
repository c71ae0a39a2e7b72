/**
 * Every threshold of the profile schema (LimitsSchema) with its stated tolerance (issue 46): a
 * measure exactly at its limit, or within rounding of it (1e-6 relative), is judged as the limit
 * itself; a measure clearly past it is judged past it, and then the number the message shows differs
 * from the limit as the message shows it ("prints at 100 ppi; the minimum is 100 ppi" never happens).
 *
 * Most limits are minimums or maximums: at the limit there is no finding. A few are defined
 * inclusively by the schema — `blankInkCoverage` ("at or below this is blank"), `minEdgeGapMm` ("the
 * narrowest band that is reported") and `minUpscaleFactor` ("the smallest enlargement reported") —
 * so at the limit (and within rounding of it) there is the finding, and clearly on the other side
 * there is none. Integer measures against their limits (pixels, bytes, JPEG quality) have no rounding
 * to tolerate: the facts schema takes whole numbers only, which the cases check. `productionPpi` is
 * compared with no measure: it sets the pixel counts the messages advise, which must not be pushed up
 * a pixel by floating-point rounding.
 *
 * The table must hold one case per key of LimitsSchema: a limit added without a case fails here.
 */
import { describe, expect, it } from 'vitest';
import { ImageFactsSchema, type DocumentFacts, type PageFacts } from '../../../src/pdf/facts.js';
import { mmToPt } from '../../../src/pdf/units.js';
import { LimitsSchema, type Limits } from '../../../src/profile/schema.js';
import type { RasterFacts } from '../../../src/raster/facts.js';
import type { CheckContext } from '../../../src/rules/context.js';
import { blankCeiling, inks } from '../../../src/rules/check-page-pixels.js';
import { runChecks } from '../../../src/rules/index.js';
import type { Finding } from '../../../src/model/finding.js';
import { context, doc, image, page } from '../../helpers/facts.js';

/** Within rounding of a limit: 1e-6 relative, far below the stated 1e-4. */
const NEAR = 1e-6;

/** A raster of a 2040 × 2040 mm duvet page, 1 px a millimetre: ink everywhere, no white band. */
function raster(extra: Partial<RasterFacts> = {}): RasterFacts {
  return { index: 1, widthPx: 2040, heightPx: 2040, method: 'pdfium', ms: 1, warnings: [], inkCoverage: 0.5, edgeGapPx: { top: 0, right: 0, bottom: 0, left: 0 }, ...extra };
}

/** The duvet's front page, 2040 × 2040 mm (trim 2000 mm, bleed 20 mm, safe margin 25 mm), and its back. */
const duvet = (p: PageFacts): DocumentFacts => doc([p, page(2, 2040, 2040)]);

/** Runs every check on facts with the limits given over the profile's (the target's too: some checks read its bleed). */
async function judge(facts: DocumentFacts, limits: Partial<Limits> = {}, rasterFacts?: RasterFacts, product?: { product: string; variant: string }): Promise<Finding[]> {
  const ctx: CheckContext = await context(facts, product);
  const target = { ...ctx.target, limits: { ...ctx.target.limits, ...limits } };
  return runChecks({ ...ctx, target, limits: { ...ctx.limits, ...limits }, ...(rasterFacts ? { raster: new Map([[1, rasterFacts]]) } : {}) });
}

/** A stroke or text mark inside the duvet's trim. */
const marks = (m: Partial<NonNullable<PageFacts['marks']>>): NonNullable<PageFacts['marks']> => ({ texts: [], strokes: [], shapes: [], dropped: 0, ink: 0.5, images: 0.5, ...m });
const inTrim: [number, number, number, number] = [mmToPt(500), mmToPt(500), mmToPt(600), mmToPt(600)];

interface Case {
  /**
   * min: a finding below the limit; max: above it; from: a finding at and beyond the limit (the
   * schema's inclusive limits; `below` says which side); integer: whole measures, compared exactly;
   * figure: no measure compared, the figures it yields checked.
   */
  kind: 'min' | 'max' | 'from' | 'integer' | 'figure';
  /** The finding the limit decides, told from the others (a severity, a wording). */
  hit: (f: Finding) => boolean;
  /** The limit in force (the profile's default, or set here). */
  limit: number;
  /** The findings with the measure at `measure` (for cases that move the limit instead, the limit that puts the fixed measure there). */
  judge: (measure: number) => Promise<Finding[]>;
  /** A measure clearly past the limit. */
  past: number;
  /** The measure and the limit as the finding's message writes them, when it writes both. */
  shown?: (f: Finding) => [string, string];
  /** `from` cases: the finding lies below the limit (blank coverage) rather than from it upwards. */
  below?: boolean;
  /** Cases that move the limit against a fixed measure: `judge` takes the limit. */
  movesLimit?: boolean;
}

const code =
  (c: Finding['code'], also: (f: Finding) => boolean = () => true) =>
  (f: Finding) =>
    f.code === c && also(f);
/** The first two numbers a text writes ("2,043 × 2,040 mm" → "2043"), by a pattern with two groups. */
const pick = (re: RegExp) => (f: Finding) => {
  const m = re.exec(f.message);
  if (!m) throw new Error(`${re} not in: ${f.message}`);
  return [m[1]!, m[2]!] as [string, string];
};

const CASES: Record<keyof Limits, Case> = {
  bleedMm: {
    // page-edge-gap says whether the white band is "wider than the bleed": a 20 mm band is not.
    kind: 'max',
    hit: code('page-edge-gap', (f) => f.message.includes('wider than')),
    limit: 20,
    movesLimit: true,
    judge: (bleed) => judge(duvet(page(1, 2040, 2040)), { bleedMm: bleed }, raster({ edgeGapPx: { top: 20, right: 0, bottom: 0, left: 0 } })),
    past: 15,
    shown: pick(/top \((\d+(?:\.\d+)?) mm\).*?wider than the (\d+(?:\.\d+)?) mm bleed/),
  },
  toleranceMm: {
    kind: 'max',
    hit: (f) => f.code.startsWith('page-') && /size|scale|orientation|bleed/.test(f.code),
    limit: 2,
    judge: (off) => judge(duvet(page(1, 2040 + off, 2040))),
    past: 3,
    // "2043 × 2040 mm" against "2040 × 2040 mm ± 2 mm": 3 mm off, shown, against 2 mm.
    shown: (f) => [String(Number(/^(\S+) ×/.exec(f.actual!)![1]) - 2040), /± (\S+) mm/.exec(f.expected!)![1]!],
  },
  scaleTolerance: {
    // Proportions off by more than scaleTolerance: another size (page-size-mismatch), not a scaled
    // page. Curtains 140x260 (1440 × 2640 mm), a half-size page made `off` wider.
    kind: 'max',
    hit: code('page-size-mismatch'),
    limit: 0.01,
    judge: (off) => judge(doc([page(1, 720 * (1 + off), 1320), page(2, 1440, 2640)]), {}, undefined, { product: 'curtains', variant: '140x260' }),
    past: 0.05,
  },
  minPpi: {
    kind: 'min',
    hit: code('image-low-resolution'),
    limit: 100,
    judge: (ppi) => judge(duvet(page(1, 2040, 2040, { images: [image(1000, 1000, 254, 254, { ppiX: ppi, ppiY: ppi })] }))),
    past: 90,
    shown: pick(/: (\d+(?:\.\d+)?) ppi; the minimum is (\d+(?:\.\d+)?) ppi/),
  },
  minPpiError: {
    kind: 'min',
    hit: code('image-low-resolution', (f) => f.severity === 'error'),
    limit: 50,
    judge: (ppi) => judge(duvet(page(1, 2040, 2040, { images: [image(500, 500, 254, 254, { ppiX: ppi, ppiY: ppi })] }))),
    past: 45,
    shown: pick(/: (\d+(?:\.\d+)?) ppi; below (\d+(?:\.\d+)?) ppi/),
  },
  productionPpi: {
    // Compared with no measure: an image placed 254 mm wide needs exactly 1,000 px at 100 ppi and
    // 1,500 px at 150 ppi — not 1,001 and 1,501 because 254 mm went through points and back.
    kind: 'figure',
    hit: code('image-low-resolution'),
    limit: 150,
    judge: () => judge(duvet(page(1, 2040, 2040, { images: [image(900, 900, 254, 254)] }))),
    past: 0,
  },
  maxImagePixels: {
    kind: 'integer',
    hit: code('image-too-large'),
    limit: 15_000,
    judge: (px) => judge(duvet(page(1, 2040, 2040, { images: [image(px, 100, 2000, 20)] }))),
    past: 15_001,
    shown: pick(/is ([\d,]+) × 100 px, over the service's limit of ([\d,]+) px/),
  },
  maxFileBytes: {
    kind: 'integer',
    hit: code('file-too-large'),
    limit: 50_000_000,
    judge: (bytes) => judge(doc([page(1, 2040, 2040), page(2, 2040, 2040)], { bytes })),
    past: 50_000_001,
    // "50 MB (50,000,001 bytes), over the service's limit of 50 MB (50,000,000 bytes)"
    shown: pick(/\(([\d,]+) bytes\), over the service's limit of [^(]*\(([\d,]+) bytes\)/),
  },
  blankInkCoverage: {
    // "A page whose share of non-white pixels is at or below this is blank."
    kind: 'from',
    below: true,
    hit: code('page-blank'),
    limit: 0.0001,
    judge: (ink) => judge(duvet(page(1, 2040, 2040)), {}, raster({ inkCoverage: ink })),
    past: 0.0003,
  },
  minEdgeGapMm: {
    // "The narrowest white band along a sewn edge that is reported": a band of 1 mm, with the limit moved.
    kind: 'from',
    hit: code('page-edge-gap'),
    limit: 1,
    movesLimit: true,
    judge: (min) => judge(duvet(page(1, 2040, 2040)), { minEdgeGapMm: min }, raster({ edgeGapPx: { top: 1, right: 0, bottom: 0, left: 0 } })),
    past: 1.5,
  },
  safeMarginMm: {
    // The duvet's layers keep 25 mm: a text whose left edge lies on the safe line (45 mm from the
    // page edge) is inside; the geometry's own tolerance (0.5 mm, check-marks.ts) is far above rounding.
    kind: 'min',
    hit: code('content-in-seam-zone'),
    limit: 45,
    judge: (x) => judge(duvet(page(1, 2040, 2040, { marks: marks({ texts: [{ box: [mmToPt(x), mmToPt(1000), mmToPt(300), mmToPt(1010)], sizePt: 12, text: 'A' }] }) }))),
    past: 35,
  },
  minLineWidthPt: {
    kind: 'min',
    hit: code('line-too-thin'),
    limit: 1,
    judge: (w) => judge(duvet(page(1, 2040, 2040, { marks: marks({ strokes: [{ box: inTrim, widthPt: w }] }) }))),
    past: 0.5,
    shown: pick(/the thinnest is (\d+(?:\.\d+)?) pt.*?at least (\d+(?:\.\d+)?) pt wide/),
  },
  minTextSizePt: {
    kind: 'min',
    hit: code('text-too-small'),
    limit: 6,
    judge: (s) => judge(duvet(page(1, 2040, 2040, { marks: marks({ texts: [{ box: inTrim, sizePt: s, text: 'A' }] }) }))),
    past: 5,
    shown: pick(/the smallest is (\d+(?:\.\d+)?) pt.*?at (\d+(?:\.\d+)?) pt or more/),
  },
  minJpegQuality: {
    kind: 'integer',
    hit: code('image-jpeg-quality', (f) => f.severity === 'warning'),
    limit: 60,
    judge: (q) => judge(duvet(page(1, 2040, 2040, { images: [image(3000, 3000, 254, 254, { jpegQuality: { quality: q, exact: true } })] }))),
    past: 59,
    shown: (f) => [/quality (\d+)/.exec(f.actual!)![1]!, /≥ (\d+)/.exec(f.expected!)![1]!],
  },
  infoJpegQuality: {
    kind: 'integer',
    hit: code('image-jpeg-quality', (f) => f.severity === 'info'),
    limit: 75,
    judge: (q) => judge(duvet(page(1, 2040, 2040, { images: [image(3000, 3000, 254, 254, { jpegQuality: { quality: q, exact: true } })] }))),
    past: 74,
  },
  minUpscaleFactor: {
    // "The smallest enlargement reported": an image placed at 130 ppi, enlarged 1.5× (detail 87 ppi; 1.4× would be 93 ppi).
    kind: 'from',
    hit: code('image-upscaled'),
    limit: 1.5,
    judge: (factor) =>
      judge(
        duvet(page(1, 2040, 2040, { images: [image(1400, 1400, 254, 254)] })),
        {},
        raster({ imageDetail: [{ ref: '10 0 R', factor, factorX: factor, factorY: factor, factorHigh: factor, evidence: 0.9 }] }),
      ),
    past: 1.4,
  },
  maxUnpaintedShare: {
    // 20 rows of 2,000 px unpainted inside the 2,000 × 2,000 px trim: 1 % exactly; the limit moves.
    kind: 'max',
    hit: code('page-unpainted-area'),
    limit: 0.01,
    movesLimit: true,
    judge: (max) => {
      const runs = new Uint16Array(Array.from({ length: 20 }, (_, i) => [100 + i, 20, 2020]).flat());
      const unpainted = { share: 0.01, cols: 1, rows: 1, cells: Buffer.from([3]).toString('base64'), runs: Buffer.from(runs.buffer).toString('base64') };
      return judge(duvet(page(1, 2040, 2040)), { maxUnpaintedShare: max }, raster({ unpainted }));
    },
    past: 0.005,
    shown: (f) => [/: (\S+) % of the panel/.exec(f.message)![1]!, /at most (\S+) %/.exec(f.expected!)![1]!],
  },
  boxEpsilonMm: {
    // A TrimBox whose left edge lies `offset` mm inside the page's.
    kind: 'max',
    hit: code('page-boxes-differ'),
    limit: 0.1,
    judge: (offset) => {
      const p = page(1, 2040, 2040);
      const [, y0, x1, y1] = p.checkedBox;
      return judge(duvet({ ...p, boxes: { ...p.boxes, trim: [mmToPt(offset), y0, x1, y1] } }));
    },
    past: 0.5,
    shown: pick(/edges lie up to (\d+(?:\.\d+)?) mm from the page's, more than the (\d+(?:\.\d+)?) mm/),
  },
};

/** Where a measure within rounding of the limit lies: on the side of the limit where there is no finding, for min and max. */
function near(c: Case): number {
  if (c.kind === 'min') return c.movesLimit ? c.limit * (1 + NEAR) : c.limit * (1 - NEAR);
  if (c.kind === 'max') return c.movesLimit ? c.limit * (1 - NEAR) : c.limit * (1 + NEAR);
  // Inclusive limits: a hair on the side where there would be none.
  const findingBelow = c.below === true;
  if (c.movesLimit) return findingBelow ? c.limit * (1 - NEAR) : c.limit * (1 + NEAR);
  return findingBelow ? c.limit * (1 + NEAR) : c.limit * (1 - NEAR);
}

describe('every threshold of the profile schema, with its stated tolerance', () => {
  it('has a case for every key of LimitsSchema (a new limit needs one)', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(LimitsSchema.shape).sort());
  });

  it('the cases use the profile’s own limits', async () => {
    const { limits } = await context(duvet(page(1, 2040, 2040)));
    for (const [key, c] of Object.entries(CASES)) {
      if (key === 'safeMarginMm') expect(limits.bleedMm + (await context(doc([]))).target.layers[0]!.safeMarginMm!).toBe(c.limit);
      else expect(limits[key as keyof Limits], key).toBe(c.limit);
    }
  });

  const table = Object.entries(CASES).filter(([, c]) => c.kind !== 'figure');
  it.each(table)('%s: at the limit and within rounding of it, judged as the limit', async (_key, c) => {
    const atLimit = c.kind === 'from';
    expect((await c.judge(c.limit)).some(c.hit)).toBe(atLimit);
    if (c.kind === 'integer') return; // no fraction of a pixel, byte or quality step: see the next test
    expect((await c.judge(near(c))).some(c.hit)).toBe(atLimit);
  });

  it.each(table)('%s: clearly past the limit, judged past it; the message shows a measure other than the limit', async (_key, c) => {
    const found = (await c.judge(c.past)).filter(c.hit);
    expect(found.length > 0).toBe(c.kind !== 'from');
    if (!c.shown || !found.length) return;
    const [measure, limit] = c.shown(found[0]!);
    expect(measure, found[0]!.message).not.toBe(limit);
  });

  it('integer measures are whole numbers in the facts: no rounding to tolerate', () => {
    const img = image(15_000, 100, 2000, 20);
    expect(ImageFactsSchema.safeParse(img).success).toBe(true);
    expect(ImageFactsSchema.safeParse({ ...img, widthPx: 15_000.5 }).success).toBe(false);
    expect(ImageFactsSchema.safeParse({ ...img, jpegQuality: { quality: 59.5, exact: true } }).success).toBe(false);
  });

  it('productionPpi: the pixels a message asks for are not pushed up by floating-point rounding', async () => {
    const found = (await CASES.productionPpi.judge(0)).find(CASES.productionPpi.hit)!;
    expect(found.message).toContain('Supply at least 1,000 × 1,000 px for that printed size (1,500 × 1,500 px for 150 ppi)');
  });

  it('blankInkCoverage: the render worker’s "empty drawing" agrees with page-blank (blankCeiling)', () => {
    for (const b of [0, 0.0001, 0.00015, 0.01, 0.5, 1]) {
      for (const c of [0, b, b * (1 + NEAR), b * 1.00009, b * 1.0002, b + 0.000004, b + 0.000005, b + 0.000006, b * 1.5 + 0.00001, 1].filter((x) => x <= 1)) {
        expect(c <= blankCeiling(b), `coverage ${c} against ${b}`).toBe(!inks(c, b));
      }
    }
  });

  it('the unpainted share is shown against its limit', async () => {
    const c = CASES.maxUnpaintedShare;
    const found = (await c.judge(c.past)).find(c.hit)!;
    expect(found.message).toMatch(/: 1 % of the panel/);
    expect(found.expected).toBe('at most 0.5 % unpainted');
  });
});
