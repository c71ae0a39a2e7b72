/**
 * Properties of the fixes (fix and checkAndFix: /Rotate baked, uniform scaling, page order,
 * CMYK and other spaces to sRGB, images downsampled) on random but valid files (generate.ts), judged
 * by outside tools: qpdf checks the written file, and MuPDF and Ghostscript draw every fixed page
 * next to the original page it came from.
 *
 * For every generated file:
 *   - the fixed file passes `qpdf --check` and our check reads it whole;
 *   - the check of the fixed file finds none of the codes fixed (unless the fix said it refused);
 *   - the page count stays, and the pages are in the order asked (explicit `pages`, or the order
 *     the check found from the layer sizes);
 *   - each fixed page looks like its original as MuPDF and Ghostscript draw them, at the original's
 *     shown size (/Rotate and /UserUnit applied) at DRAW_DPI: a pixel of one drawing is matched when
 *     the other has a pixel within SLACK_PX px (geometry within two pixels) and, in Ghostscript's
 *     colour-managed drawing, within MAX_DELTA_E (ΔE76) — converted colours included. Ghostscript
 *     converts DeviceCMYK through the profile our fixes assume (the chain's default, cmyk-profile.ts); what remains between
 *     the two conversions is rendering intent and black point in the darkest, most inked colours
 *     (over a 256-colour CMYK grid: mean ΔE 3.7, largest 13.3 at C100 M70 Y100 K65). MuPDF draws
 *     without ICC here, so its own CMYK differs from any colour-managed conversion, and its drawings
 *     are compared as ink against paper. The outermost pixel of each edge is not judged (renderers
 *     round a box with fractional edges outward and show a sliver beyond it). At most MAX_UNMATCHED of the pixels may match nothing:
 *     a downsampled image re-encoded as JPEG rings at its block edges (a colour in neither block),
 *     and the mean ΔE over the page stays below MAX_MEAN_DELTA_E.
 *
 * FC_RUNS sets the number of files (default 6, a minute or so on two cores); FC_SEED replays one
 * run (fast-check prints the seed and the shrunk case of a failure).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fix } from '../../src/flow/fix.js';
import { checkAndFix } from '../../src/flow/check-and-fix.js';
import { ProfileRegistry } from '../../src/profile/registry.js';
import { parseProfile } from '../../src/profile/load.js';
import type { Report } from '../../src/report/schema.js';
import { inspectPdf } from '../../src/pdf/inspect.js';
import { compareDrawings, deltaE, chainCmykProfile, drawPage, resized, type Drawing, type Renderer } from '../helpers/outside-render.js';
import { fileCase, shownSizePt, testProfile, writeCase, type FileCase } from './generate.js';

const RUNS = Number(process.env.FC_RUNS ?? 6);
/** The run's seed: FC_SEED, or drawn now and printed before the run, so any failure (a timeout too) replays. */
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
const DRAW_DPI = 18;
const SLACK_PX = 2;
/** ΔE76 between Ghostscript's drawing of the original and of the fixed page, pixel for pixel. */
const MAX_DELTA_E = 15;
/** Share of pixels that may match nothing (ringing of resampled, re-encoded images at sharp edges). */
const MAX_UNMATCHED = 0.002;
/** Mean ΔE76 over the whole page, Ghostscript's drawings. */
const MAX_MEAN_DELTA_E = 5;
/**
 * Ink against paper in MuPDF's drawings, with a band between: paper within PAPER_DELTA_E of white,
 * ink past INK_DELTA_E (ΔE76). MuPDF draws CMYK here without ICC, so a light colour converted by the
 * fix (through a profile) and the same colour drawn naively differ by a few ΔE; a single threshold
 * then calls one drawing's pixel paper and the other's ink (seed 216267324: JPEG ringing in the white
 * block of an 8 × 8 CMYK image, 253,253,253 before and 244,255,251 after, ΔE 5.6). Colour is judged
 * on Ghostscript's colour-managed drawings; MuPDF's judge where ink is, and a faint pixel matches
 * either side.
 */
const PAPER_DELTA_E = 6;
const INK_DELTA_E = 20;

/** Every pixel white (paper), black (ink) or mid grey (faint): drawings compare by where they paint. */
function inkMask(d: Drawing): Drawing {
  const rgb = new Uint8Array(d.rgb.length);
  for (let i = 0; i < d.width * d.height; i++) {
    const fromWhite = deltaE([d.rgb[i * 3]!, d.rgb[i * 3 + 1]!, d.rgb[i * 3 + 2]!], WHITE);
    rgb.fill(fromWhite <= PAPER_DELTA_E ? 255 : fromWhite >= INK_DELTA_E ? 0 : FAINT, i * 3, i * 3 + 3);
  }
  return { ...d, rgb };
}
const WHITE = [255, 255, 255];
/** Mid grey: ΔE76 54 from black and 46 from white, so within INK_MATCH of both, and those two 100 apart. */
const FAINT = 128;
const INK_MATCH = 60;

const registry = ProfileRegistry.from([1, 2, 3, 4].map((n) => ({ profile: parseProfile(testProfile(n), `prop-${n}.json`) })));
const FIXED_CODES = ['page-order-mismatch', 'page-rotate-set', 'page-scale-mismatch', 'colour-space-not-rgb', 'image-too-large'] as const;

async function compareWith(renderer: Renderer, original: Uint8Array, originalPage: number, fixed: Uint8Array, fixedPage: number, fixedWidthPt: number, shownWidthPt: number) {
  const options = { cmykProfile: chainCmykProfile() };
  const a = await drawPage(original, originalPage, DRAW_DPI, renderer, options);
  // The fixed page drawn so that it has the original's pixel size: scaled pages come out alike.
  const b = await resized(await drawPage(fixed, fixedPage, (DRAW_DPI * shownWidthPt) / fixedWidthPt, renderer, options), a.width, a.height);
  return renderer === 'ghostscript' ? compareDrawings(a, b, SLACK_PX, MAX_DELTA_E, 1) : compareDrawings(inkMask(a), inkMask(b), SLACK_PX, INK_MATCH, 1);
}

function qpdfCheck(bytes: Uint8Array): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'pp-qpdf-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    execFileSync('qpdf', ['--check', join(dir, 'f.pdf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    return null;
  } catch (error) {
    const e = error as { status?: number; stdout?: Buffer; stderr?: Buffer };
    // Exit 3: warnings only (qpdf read the file whole).
    return e.status === 3 ? null : `${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`.trim();
  }
}

/**
 * Runs one case: fix (or checkAndFix) and every property. Returns nothing; fails by expect.
 * `allowOpenBugs`: let through what an open bug of OPEN_BUGS does (the tests of the bugs themselves say false).
 */
async function checkCase(file: FileCase, viaFlow: boolean, explicitOrder: number[] | null, allowOpenBugs = true) {
  const original = await writeCase(file);
  const sku = `PROP-${file.pages.length}`;
  const options = { profiles: registry, raster: false, pool: false as const };
  let fixed: Uint8Array | null;
  let before: Report;
  let after: Report | null;
  let changes: { code: string; page: number | null; action: string }[];
  let refused: { code: string; page: number | null }[];
  if (viaFlow) {
    const out = await checkAndFix(original, { sku }, { ...options, fix: 'auto' });
    fixed = out.fixed?.bytes ?? null;
    before = out.before;
    after = out.fixed ? out.report : null;
    changes = out.fixed?.changes ?? [];
    // With no file written, the refusals are the result's own (seed 666168158: an Indexed-over-CMYK
    // fill, not converted, was said there and the oracle looked only at the fixed file's).
    refused = out.fixed?.refused ?? out.refused ?? [];
  } else {
    // Every fix the policy names is approved here (the approval list is checkAndFix's and the CLI's concern).
    const out = await fix(original, { sku }, explicitOrder ? { pages: explicitOrder, approve: 'all' } : { reorder: true, approve: 'all' }, options);
    ({ bytes: fixed, before, after, changes, refused } = out);
  }
  const wanted = new Set(before.findings.filter((f) => (FIXED_CODES as readonly string[]).includes(f.code)).map((f) => f.code));
  for (const c of wanted) tally.set(c, (tally.get(c) ?? 0) + 1);
  if (!fixed) tally.set('nothing written', (tally.get('nothing written') ?? 0) + 1);
  if (!fixed) {
    // Nothing written: then nothing was there to fix, or the fix said why it did not.
    expect(
      [...wanted].filter((code) => !refused.some((r) => r.code === code)),
      'findings a fix should have handled or refused, and no file written',
    ).toEqual([]);
    return;
  }
  // The file: qpdf reads it whole, and so does our check.
  expect(qpdfCheck(fixed)).toBeNull();
  const facts = await inspectPdf(fixed);
  expect(facts.problems.filter((p) => p.kind !== 'repaired')).toEqual([]);
  expect(facts.pageCount).toBe(file.pages.length);
  // None of the codes the policy fixes is found again, unless the fix said it refused it (an
  // explicit order other than the layers' is the user's: page-order-mismatch may stay then).
  expect(after).not.toBeNull();
  for (const code of wanted) {
    if (code === 'page-order-mismatch' && explicitOrder) continue;
    const left = after!.findings.filter((f) => f.code === code && !refused.some((r) => r.code === code && (r.page === f.page || r.page === null)));
    expect(
      left.map((f) => `${f.code} p${f.page}: ${f.message}`),
      `${code} was to be fixed`,
    ).toEqual([]);
  }
  // The order: as asked, or as the check found it.
  const reordered = changes.find((c) => c.code === 'page-order-mismatch');
  const order =
    explicitOrder ??
    (reordered
      ? /order ([\d, ]+)/
          .exec(reordered.action)![1]!
          .split(',')
          .map((s) => Number(s.trim()))
      : file.pages.map((_, i) => i + 1));
  const orderSeenLate = allowOpenBugs && !before.findings.some((f) => f.code === 'page-order-mismatch') && before.findings.some((f) => f.code === 'page-scale-mismatch');
  if (orderSeenLate) tally.set('scaled pages, order not judged (open bug)', (tally.get('scaled pages, order not judged (open bug)') ?? 0) + 1);
  if (!explicitOrder && !reordered && !orderSeenLate) {
    // No reorder made: then the pages were in layer order already.
    expect(after!.findings.filter((f) => f.code === 'page-order-mismatch' && !refused.some((r) => r.code === 'page-order-mismatch'))).toEqual([]);
  }
  // Every page, drawn by both renderers, against the original page it came from.
  for (const [i, from] of order.entries()) {
    const page = file.pages[from - 1]!;
    const [shownW] = shownSizePt(page);
    const fixedPage = facts.pages[i]!;
    const fixedW = (fixedPage.rotate % 180 === 0 ? fixedPage.widthMm : fixedPage.heightMm) * (72 / 25.4);
    for (const renderer of ['ghostscript', 'mupdf'] as const) {
      const c = await compareWith(renderer, original, from, fixed, i + 1, fixedW, shownW);
      const what = `page ${i + 1} (original page ${from}, /Rotate ${page.rotate}, scale ${page.scale}, /UserUnit ${page.userUnit}) drawn by ${renderer}: ${c.unmatched} of ${c.total} pixels match nothing within ${SLACK_PX} px (mean ΔE ${c.meanDeltaE.toFixed(2)}; first at ${JSON.stringify(c.first)})`;
      expect(c.unmatched / c.total, what).toBeLessThanOrEqual(MAX_UNMATCHED);
      if (renderer === 'ghostscript') expect(c.meanDeltaE, what).toBeLessThanOrEqual(MAX_MEAN_DELTA_E);
    }
  }
}

/**
 * Bugs these properties found that are fixed (issue 33): each case, once taken out of the run, is
 * in it again, and checked on its own as a regression.
 */
const FIXED_BUGS = [
  {
    bug: 'src/convert/vector.ts keeps no q/Q state: after `/S cs v sc q /rgb cs … Q v sc` the second `v sc` stays unconverted in what the rewrite made DeviceRGB (Ghostscript paints 0 0 0 0 as black)',
    hits: (file: FileCase) => file.pages.some((p) => p.paints.some((x) => x.kind === 'rect' && x.reSet && !['rgb', 'gray', 'cmyk', 'icc-rgb'].includes(x.space))),
    example: {
      pages: [
        {
          layer: 0,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [{ kind: 'rect', space: 'icc-cmyk', colour: [0, 0, 0, 0], nesting: 0, reSet: true, filter: 'none', pixels: 8, cell: 0 }],
        },
      ],
    } as FileCase,
  },
  {
    bug: 'src/convert/fix.ts fixImages files every image result under one code (colour-space-not-rgb whenever colours are converted): an image too large that cannot be rewritten (here behind ASCII85Decode + DCTDecode, which images.ts does not decode) is refused as colour-space-not-rgb, and image-too-large stays in the fixed file with neither a change nor a refusal of its own',
    hits: (file: FileCase) => file.pages.some((p) => p.paints.some((x) => x.kind === 'image' && x.pixels > 100 && x.filter === 'a85-dct')),
    example: {
      pages: [
        {
          layer: 0,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [
            { kind: 'image', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'a85-dct', pixels: 160, cell: 0 },
            { kind: 'rect', space: 'icc-cmyk', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 1 },
          ],
        },
      ],
    } as FileCase,
  },
  {
    bug: "the oracle, not the fix (seed 216267324): MuPDF draws CMYK without ICC and was compared as ink against paper at one threshold, so the white block of an 8 × 8 ICC-CMYK JPEG (ringing: 253,253,253 drawn before, 244,255,251 after the fix's colour-managed conversion, ΔE 5.6, within Ghostscript's tolerance) counted as paper before and ink after on 0.67 % of the page",
    hits: (_file: FileCase) => false,
    example: {
      pages: [
        {
          layer: 1,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [
            { kind: 'image', space: 'icc-cmyk', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'dct', pixels: 8, cell: 0 },
            { kind: 'rect', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 1 },
          ],
        },
        {
          layer: 0,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [{ kind: 'rect', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 0 }],
        },
        {
          layer: 2,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [{ kind: 'rect', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 0 }],
        },
      ],
    } as FileCase,
  },
];

/**
 * Bugs found by these properties and not fixed yet, each with the cases it takes out of the run and
 * a test below that expects the bug (it fails once the bug is fixed: then delete the entry).
 */
const OPEN_BUGS = [
  {
    bug: 'src/convert/fix.ts plans the page order from the first check only: when a page is off its layer by a uniform scale, the check cannot match it to a layer and says nothing of the order; fix scales it, and the fixed file is then found out of order (page-order-mismatch, action fix, "fix --reorder puts them as pages 1, 3, 2") though reorder was asked, with neither a change nor a refusal',
    // Told apart in checkCase (the first check found a scale mismatch and no order), not by the case.
    hits: (_file: FileCase) => false,
    example: {
      pages: [
        {
          layer: 0,
          rotate: 0,
          scale: 0.5,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [{ kind: 'rect', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 0 }],
        },
        {
          layer: 2,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [{ kind: 'rect', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 0 }],
        },
        {
          layer: 1,
          rotate: 0,
          scale: 1,
          userUnit: 1,
          origin: [0, 0],
          streams: 1,
          cropMargin: 0,
          paints: [{ kind: 'rect', space: 'rgb', colour: [0, 0, 0, 0], nesting: 0, reSet: false, filter: 'none', pixels: 8, cell: 0 }],
        },
      ],
    } as FileCase,
  },
];

/** Which fixes the generated files got, over the run (said at the end: the properties are not vacuous). */
const tally = new Map<string, number>();

describe('fixes, judged by qpdf, MuPDF and Ghostscript (properties)', () => {
  it(
    `fix and checkAndFix keep every page as it looks, fix what they say, in the order asked (${RUNS} files)`,
    async () => {
      console.log(`transforms property: FC_SEED=${SEED} FC_RUNS=${RUNS} replays this run`);
      await fc.assert(
        fc.asyncProperty(fileCase, fc.boolean(), fc.boolean(), async (file, viaFlow, explicit) => {
          fc.pre(!OPEN_BUGS.some((b) => b.hits(file)));
          const n = file.pages.length;
          // An explicit order: the reverse of the file's pages (a permutation the user gives).
          const explicitOrder = !viaFlow && explicit && n > 1 ? Array.from({ length: n }, (_, i) => n - i) : null;
          await checkCase(file, viaFlow, explicitOrder);
        }),
        { numRuns: RUNS, seed: SEED },
      );
      console.log(`codes to fix over ${RUNS} files: ${[...tally].map(([c, n]) => `${c} ${n}`).join(', ')}`);
      // The generator gives most files something to fix (sizes, /Rotate, colour spaces, image sizes).
      expect([...tally].filter(([c]) => c !== 'nothing written').reduce((s, [, n]) => s + n, 0)).toBeGreaterThan(0);
    },
    Math.max(120_000, RUNS * 60_000),
  );

  for (const fixed of FIXED_BUGS) {
    it(`fixed bug, stays fixed: ${fixed.bug}`, async () => {
      await checkCase(fixed.example, false, null, false);
    }, 120_000);
  }

  for (const open of OPEN_BUGS) {
    it.fails(`open bug, still there: ${open.bug}`, async () => {
      await checkCase(open.example, false, null, false);
    }, 120_000);
  }
});
