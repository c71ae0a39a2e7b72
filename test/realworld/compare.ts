/**
 * Compares what print-preflight's inspection finds in a PDF with what independent readers say:
 * poppler (`pdfinfo -box`, `pdfimages -list`, `pdffonts`) and qpdf (`qpdf --check`). Used by the
 * real-world corpus run (`npm run realworld -- DIR`) and by its test over files Debian producers
 * make at test time.
 *
 * Aspects compared, each as agreed / compared:
 * - pages: page count, and each page's size (CropBox clipped to the MediaBox, turned by /Rotate)
 *   within 0.01 pt;
 * - images: per page, the multiset of drawn images (width × height px and colour family; stencil
 *   masks as "stencil"), soft masks and /Mask images left out as poppler lists them apart; images
 *   inside tiling patterns are counted apart and not compared, because pdfimages never lists them
 *   (poppler's ImageOutputDev does not descend into tiling patterns), and poppler's rows for images
 *   drawn only inside soft-mask groups (ExtGState /SMask /G, a mask, never printed as such) are
 *   counted apart too;
 * - fonts: every font our scan sees drawing visible text is in pdffonts' list with the same
 *   embedding (by object number);
 * - damage: a file qpdf must reconstruct is pdf-repaired or pdf-damaged for us, and a file qpdf
 *   finds clean is not pdf-repaired;
 * - pixels (with a pool): each previewed page against Ghostscript's print rendering, or poppler's
 *   or MuPDF's where Ghostscript misreads (previews.ts); a page whose report says its preview is
 *   approximate is a flagged difference, which the report itself explains;
 * - blank: each previewed page's blank verdict against the oracles' (Ghostscript -dPrinted draws
 *   printable annotations, form fields included).
 * Page counts are compared with poppler's (pdfinfo), qpdf's (--show-npages) and MuPDF's (mutool
 * info): all three number pages by the page tree, as we do.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PDFDocument, PDFRef, type PDFContext, type PDFObject } from 'pdf-lib';
import { inspectPdf } from '../../src/pdf/inspect.js';
import { N, dictOf, nameOf, resolve } from '../../src/pdf/objects.js';
import type { DocumentFacts, ImageFacts } from '../../src/pdf/facts.js';
import type { PreflightPool } from '../../src/pool/pool.js';
import { CLOSE } from './pixels.js';
import { comparePreviews, type FilePreviews, type PagePixels } from './previews.js';

const run = promisify(execFile);

export const ASPECTS = ['pages', 'images', 'fonts', 'damage', 'pixels', 'blank'] as const;
export type Aspect = (typeof ASPECTS)[number];

/** The facts both sides are reduced to before comparing. */
export interface Facts {
  /** Null when the side cannot open the file (a password, no page tree…). */
  pageCount: number | null;
  /** The oracle side: qpdf's and MuPDF's page counts (ours: undefined). */
  pageCountQpdf?: number | null;
  pageCountMupdf?: number | null;
  /** Displayed size of the first pages (up to MAX_PAGES). */
  sizes: Size[];
  /** Per page (1-based index - 1): sorted "W×H colour" keys. */
  images: string[][];
  /** Pages whose content we could not inspect at all (ours only): the goal is none. */
  pagesNotInspected: number;
  /** Images drawn inside tiling patterns (ours) or only in soft-mask groups (oracle), left out of `images`. */
  patternImages: number;
  maskGroupImages: number;
  /** Font object number "12 0" → embedded. */
  fonts: Map<string, boolean>;
  /** clean, repaired (rebuilt by the reader), damaged (cannot be read as is), or unknown. */
  damage: 'clean' | 'repaired' | 'damaged' | 'unknown';
}

export interface Size {
  widthPt: number;
  heightPt: number;
}

export interface Difference {
  file: string;
  aspect: Aspect;
  /** Page number, font object, or "count". */
  where: string;
  ours: string;
  oracle: string;
  /** Comparisons that disagree in it (images on a page: the longer of the two leftover lists). */
  count: number;
  /** The report itself says so (a preview marked approximate): explained without a reviewed entry. */
  flagged?: boolean;
}

export interface FileResult {
  file: string;
  /** Our images inside tiling patterns: not compared (pdfimages does not list them). */
  patternImages: number;
  /** poppler's rows for images only in soft-mask groups: not compared. */
  maskGroupImages: number;
  pagesNotInspected: number;
  compared: Record<Aspect, number>;
  agreed: Record<Aspect, number>;
  differences: Difference[];
  /** The file cannot be opened without a password: nothing is compared. */
  skipped: string | null;
  /** The pixel comparison, when it ran. */
  previews?: FilePreviews;
}

/** Pages compared per file at most (sizes), so a 3,000-page file does not dominate the figures. */
export const MAX_PAGES = 500;

/** Our side: the library's structural inspection. */
export async function ourFacts(bytes: Uint8Array): Promise<{ facts: Facts; document: DocumentFacts }> {
  const document = await inspectPdf(bytes);
  const sizes = document.pages.slice(0, MAX_PAGES).map((p) => boxSize(p.checkedBox, p.rotate));
  const inPattern = (i: ImageFacts) => i.via.includes('pattern');
  const images = document.pages.map((p) =>
    p.images
      .filter((i) => !inPattern(i))
      .map(imageKey)
      .sort(),
  );
  const patternImages = document.pages.reduce((n, p) => n + p.images.filter(inPattern).length, 0);
  const fonts = new Map<string, boolean>();
  for (const p of document.pages) for (const f of p.fonts) if (f.ref) fonts.set(f.ref.replace(/ R$/, ''), f.embedded);
  const kinds = new Set(document.problems.map((p) => p.kind));
  const damage = kinds.has('damaged') || kinds.has('not-pdf') ? 'damaged' : kinds.has('repaired') ? 'repaired' : 'clean';
  const pagesNotInspected = document.pages.filter((p) => p.notes.some((n) => n.startsWith('page content'))).length;
  return { facts: { pageCount: document.pageCount, sizes, images, patternImages, maskGroupImages: 0, pagesNotInspected, fonts, damage }, document };
}

function boxSize(box: readonly number[], rotate: number): Size {
  const w = box[2]! - box[0]!;
  const h = box[3]! - box[1]!;
  return rotate === 90 || rotate === 270 ? { widthPt: h, heightPt: w } : { widthPt: w, heightPt: h };
}

/** poppler's colour names (ImageOutputDev::listImage). */
const POPPLER_COLOUR: Record<string, string> = {
  DeviceGray: 'gray',
  CalGray: 'gray',
  DeviceRGB: 'rgb',
  CalRGB: 'rgb',
  DeviceCMYK: 'cmyk',
  Lab: 'lab',
  ICCBased: 'icc',
  Indexed: 'index',
  Separation: 'sep',
  DeviceN: 'devn',
};

function imageKey(image: ImageFacts): string {
  if (image.imageMask) return `${image.widthPx}×${image.heightPx} stencil`;
  const family = image.colourSpace?.family ?? 'Unknown';
  return `${image.widthPx}×${image.heightPx} ${POPPLER_COLOUR[family] ?? '?'}`;
}

/** The oracle side: poppler and qpdf, as installed (poppler-utils, qpdf). */
export async function oracleFacts(path: string, pageCount: number | null, maskImages: ReadonlySet<string> = new Set()): Promise<Facts> {
  const tool = async (cmd: string, args: string[]) => {
    try {
      const { stdout, stderr } = await run(cmd, args, { maxBuffer: 64 * 1024 * 1024, timeout: 120_000, encoding: 'latin1' });
      return { stdout, stderr, code: 0 };
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; code?: number };
      return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : -1 };
    }
  };
  const last = String(Math.max(1, Math.min(pageCount ?? MAX_PAGES, MAX_PAGES)));
  const [info, list, fonts, check, npages, mutool] = await Promise.all([
    tool('pdfinfo', ['-box', '-f', '1', '-l', last, path]),
    tool('pdfimages', ['-list', path]),
    tool('pdffonts', [path]),
    tool('qpdf', ['--check', path]),
    tool('qpdf', ['--show-npages', path]),
    tool('mutool', ['info', path]),
  ]);
  const listed = parsePdfimages(list.stdout, maskImages);
  const count = (m: RegExpExecArray | null) => (m ? Number(m[1]) : null);
  return {
    ...parsePdfinfo(info.stdout, info.code),
    pageCountQpdf: npages.code === 0 || npages.code === 3 ? count(/^(\d+)\s*$/m.exec(npages.stdout)) : null,
    pageCountMupdf: count(/^Pages:\s+(\d+)/m.exec(mutool.stdout)),
    images: listed.pages,
    patternImages: 0,
    maskGroupImages: listed.inMaskGroups,
    pagesNotInspected: 0,
    fonts: parsePdffonts(fonts.stdout),
    damage: parseQpdf(check),
  };
}

export function parsePdfinfo(stdout: string, code: number): Pick<Facts, 'pageCount' | 'sizes'> {
  const count = /^Pages:\s+(\d+)/m.exec(stdout);
  if (code !== 0 || !count) return { pageCount: null, sizes: [] };
  const sizes: Size[] = [];
  const crop = /^Page\s+(\d+) CropBox:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/gm;
  const rot = new Map([...stdout.matchAll(/^Page\s+(\d+) rot:\s+(\d+)/gm)].map((m) => [Number(m[1]), Number(m[2])]));
  for (const m of stdout.matchAll(crop)) {
    const [x0, y0, x1, y1] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number];
    sizes[Number(m[1]) - 1] = boxSize([x0, y0, x1, y1], rot.get(Number(m[1])) ?? 0);
  }
  return { pageCount: Number(count[1]), sizes };
}

export function parsePdfimages(stdout: string, maskImages: ReadonlySet<string> = new Set()): { pages: string[][]; inMaskGroups: number } {
  const pages: string[][] = [];
  let inMaskGroups = 0;
  for (const line of stdout.split('\n').slice(2)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 7) continue;
    const [page, , type, width, height, color] = f as [string, string, string, string, string, string];
    if (type === 'smask' || type === 'mask') continue;
    if (maskImages.has(`${f[10]} ${f[11]}`)) {
      inMaskGroups++;
      continue;
    }
    const key = type === 'stencil' ? `${width}×${height} stencil` : `${width}×${height} ${color}`;
    (pages[Number(page) - 1] ??= []).push(key);
  }
  return { pages: Array.from(pages, (p) => (p ?? []).sort()), inMaskGroups };
}

/**
 * Image objects drawn only inside soft-mask groups (the /G form of an ExtGState /SMask, followed
 * through nested forms), as "num gen". pdfimages lists them with the page; they print only as a mask.
 */
export function softMaskGroupImages(context: PDFContext): Set<string> {
  const inMasks = new Set<string>();
  const seen = new Set<PDFObject>();
  const visitForm = (form: PDFObject | undefined, depth: number) => {
    const dict = dictOf(resolve(context, form));
    if (!dict || depth > 32 || seen.has(dict)) return;
    seen.add(dict);
    const xobjects = dictOf(resolve(context, dictOf(resolve(context, dict.get(N('Resources'))))?.get(N('XObject'))));
    for (const [, value] of xobjects?.entries() ?? []) {
      const x = dictOf(resolve(context, value));
      if (nameOf(x?.get(N('Subtype'))) === 'Image' && value instanceof PDFRef) inMasks.add(`${value.objectNumber} ${value.generationNumber}`);
      else visitForm(value, depth + 1);
    }
  };
  for (const [, obj] of context.enumerateIndirectObjects()) {
    const dict = dictOf(obj);
    const smask = dictOf(resolve(context, dict?.get(N('SMask'))));
    if (smask?.get(N('G'))) visitForm(smask.get(N('G')), 0);
  }
  for (const [, obj] of context.enumerateIndirectObjects()) {
    const gs = dictOf(obj);
    for (const [, v] of dictOf(resolve(context, gs?.get(N('ExtGState'))))?.entries() ?? []) {
      const smask = dictOf(resolve(context, dictOf(resolve(context, v))?.get(N('SMask'))));
      if (smask?.get(N('G'))) visitForm(smask.get(N('G')), 0);
    }
  }
  return inMasks;
}

export function parsePdffonts(stdout: string): Map<string, boolean> {
  const fonts = new Map<string, boolean>();
  for (const line of stdout.split('\n').slice(2)) {
    const m = /\s(yes|no)\s+(yes|no)\s+(yes|no)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    if (!m) continue;
    // A Type 3 font is drawn from its own glyph procedures: it needs nothing installed.
    const type3 = /\bType 3\b/.test(line);
    fonts.set(`${m[4]} ${m[5]}`, m[1] === 'yes' || type3);
  }
  return fonts;
}

export function parseQpdf(check: { stdout: string; stderr: string; code: number }): Facts['damage'] {
  const text = `${check.stdout}\n${check.stderr}`;
  if (/invalid password|unable to find trailer|unable to find \/Root/i.test(text) && check.code === 2) return 'damaged';
  if (/reconstructing cross-reference table|file is damaged/i.test(text)) return 'repaired';
  if (check.code === 0) return 'clean';
  return 'unknown';
}

/** Compares one file's two sides. */
export function compareFacts(file: string, ours: Facts, oracle: Facts, previews?: FilePreviews): FileResult {
  const compared = zeroes();
  const agreed = zeroes();
  const differences: Difference[] = [];
  const tally = (aspect: Aspect, where: string, a: string, b: string) => {
    compared[aspect]++;
    if (a === b) agreed[aspect]++;
    else differences.push({ file, aspect, where, ours: a, oracle: b, count: 1 });
  };

  // Pages: the count (poppler's, qpdf's, MuPDF's), then each size both sides list.
  tally('pages', 'count', String(ours.pageCount), String(oracle.pageCount));
  if (oracle.pageCountQpdf !== undefined) tally('pages', 'count (qpdf)', String(ours.pageCount), String(oracle.pageCountQpdf));
  if (oracle.pageCountMupdf !== undefined) tally('pages', 'count (MuPDF)', String(ours.pageCount), String(oracle.pageCountMupdf));
  if (ours.pageCount !== null && oracle.pageCount !== null) {
    const n = Math.min(ours.sizes.length, oracle.sizes.length, MAX_PAGES);
    for (let i = 0; i < n; i++) {
      const a = ours.sizes[i];
      const b = oracle.sizes[i];
      if (!a || !b) continue;
      // pdfinfo prints two decimals.
      const same = Math.abs(a.widthPt - b.widthPt) < 0.011 && Math.abs(a.heightPt - b.heightPt) < 0.011;
      tally('pages', `page ${i + 1} size`, same ? 'same' : fmtSize(a), same ? 'same' : fmtSize(b));
    }
  }

  // Images: per page, both lists as multisets; each image of the longer list is one comparison.
  const pages = Math.max(ours.images.length, oracle.images.length);
  for (let i = 0; i < Math.min(pages, MAX_PAGES); i++) {
    const a = ours.images[i] ?? [];
    const b = oracle.images[i] ?? [];
    const { common, onlyA, onlyB } = multisetDiff(a, b);
    compared.images += common + Math.max(onlyA.length, onlyB.length);
    agreed.images += common;
    if (onlyA.length || onlyB.length) {
      const count = Math.max(onlyA.length, onlyB.length);
      differences.push({ file, aspect: 'images', where: `page ${i + 1}`, ours: onlyA.join(', ') || '-', oracle: onlyB.join(', ') || '-', count });
    }
  }

  // Fonts: each font we see drawing text, against pdffonts' list.
  for (const [ref, embedded] of [...ours.fonts].sort()) {
    const theirs = oracle.fonts.get(ref);
    tally('fonts', `font ${ref} R`, embedded ? 'embedded' : 'not embedded', theirs === undefined ? 'not listed' : theirs ? 'embedded' : 'not embedded');
  }

  // Damage: qpdf's verdict where it is a clear one.
  if (oracle.damage === 'clean') tally('damage', 'file', ours.damage === 'repaired' ? 'repaired' : 'not repaired', 'not repaired');
  else if (oracle.damage === 'repaired' || oracle.damage === 'damaged') {
    tally('damage', 'file', ours.damage === 'clean' ? 'clean' : 'repaired or damaged', 'repaired or damaged');
  }
  if (previews) comparePixelAspects(file, previews, compared, agreed, differences);
  return {
    file,
    patternImages: ours.patternImages,
    maskGroupImages: oracle.maskGroupImages,
    pagesNotInspected: ours.pagesNotInspected,
    compared,
    agreed,
    differences,
    skipped: null,
    ...(previews ? { previews } : {}),
  };
}

function zeroes(): Record<Aspect, number> {
  return { pages: 0, images: 0, fonts: 0, damage: 0, pixels: 0, blank: 0 };
}

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;

/** The pixel and blank aspects of one file's previews. */
function comparePixelAspects(file: string, previews: FilePreviews, compared: Record<Aspect, number>, agreed: Record<Aspect, number>, differences: Difference[]): void {
  for (const p of previews.pages) {
    const where = `page ${p.page}`;
    compared.pixels++;
    if (p.verdict === 'agree' || p.verdict === 'agree-other') agreed.pixels++;
    else {
      const gs = p.against.ghostscript ?? p.against.poppler ?? p.against.mupdf!;
      const ours = `${p.method}: mean ${gs.mean.toFixed(1)} (over 4 px cells ${gs.coarse.toFixed(1)}), missing ${pct(gs.missing)}, extra ${pct(gs.extra)}${p.approximate ? ` (approximate: ${p.approximate})` : ''}`;
      differences.push({
        file,
        aspect: 'pixels',
        where,
        ours,
        oracle: `no reader within ${CLOSE.coarse} over 4 px cells and 0.2 % missing`,
        count: 1,
        ...(p.verdict === 'approximate' ? { flagged: true } : {}),
      });
    }
    compared.blank++;
    if (p.blankOurs === p.blankOracle) agreed.blank++;
    else differences.push({ file, aspect: 'blank', where, ours: p.blankOurs ? 'blank' : 'not blank', oracle: p.blankOracle ? 'blank' : 'not blank', count: 1 });
  }
  // A page we could not render while a reader draws it is a difference too.
  for (const f of previews.failed) {
    compared.pixels++;
    differences.push({ file, aspect: 'pixels', where: `page ${f.page}`, ours: `${f.code}: ${f.detail}`, oracle: 'drawn', count: 1 });
  }
}

function fmtSize(s: Size): string {
  return `${s.widthPt.toFixed(2)} × ${s.heightPt.toFixed(2)} pt`;
}

function multisetDiff(a: string[], b: string[]): { common: number; onlyA: string[]; onlyB: string[] } {
  const rest = new Map<string, number>();
  for (const x of b) rest.set(x, (rest.get(x) ?? 0) + 1);
  let common = 0;
  const onlyA: string[] = [];
  for (const x of a) {
    const n = rest.get(x) ?? 0;
    if (n > 0) {
      rest.set(x, n - 1);
      common++;
    } else onlyA.push(x);
  }
  const onlyB = [...rest].flatMap(([x, n]) => Array<string>(n).fill(x));
  return { common, onlyA, onlyB };
}

/** A reviewed difference: where it is, and why it is not a fault of ours. */
export interface KnownDifference {
  file: string;
  aspect: Aspect;
  /** Omitted: every difference of this aspect in the file. */
  where?: string;
  explanation: string;
}

export interface Summary {
  files: number;
  patternImages: number;
  maskGroupImages: number;
  pagesNotInspected: number;
  skipped: number;
  compared: Record<Aspect, number>;
  agreed: Record<Aspect, number>;
  /** Differences the reviewed list explains. */
  explained: Difference[];
  /** Differences nobody has reviewed: each fails the run. */
  unexplained: Difference[];
  /** Entries of the reviewed list that no longer match a difference. */
  stale: KnownDifference[];
}

export function summarise(results: readonly FileResult[], known: readonly KnownDifference[]): Summary {
  const compared = zeroes();
  const agreed = zeroes();
  const explained: Difference[] = [];
  const unexplained: Difference[] = [];
  const used = new Set<KnownDifference>();
  for (const r of results) {
    for (const a of ASPECTS) {
      compared[a] += r.compared[a];
      agreed[a] += r.agreed[a];
    }
    for (const d of r.differences) {
      const k = known.find((k) => k.file === d.file && k.aspect === d.aspect && (k.where === undefined || k.where === d.where));
      if (k) {
        used.add(k);
        explained.push(d);
      } else if (d.flagged) explained.push(d);
      else unexplained.push(d);
    }
  }
  const stale = known.filter((k) => !used.has(k) && results.some((r) => r.file === k.file));
  return {
    files: results.length,
    patternImages: results.reduce((n, r) => n + r.patternImages, 0),
    maskGroupImages: results.reduce((n, r) => n + r.maskGroupImages, 0),
    pagesNotInspected: results.reduce((n, r) => n + r.pagesNotInspected, 0),
    skipped: results.filter((r) => r.skipped).length,
    compared,
    agreed,
    explained,
    unexplained,
    stale,
  };
}

/**
 * The pixel comparison's figures (Markdown): pages by verdict and engine, and the distribution of
 * the mean difference from Ghostscript, for bench/RENDERERS.md.
 */
export function formatPixelDistribution(results: readonly FileResult[]): string {
  const pages = results.flatMap((r) => r.previews?.pages ?? []);
  if (!pages.length) return '';
  const failed = results.reduce((n, r) => n + (r.previews?.failed.length ?? 0), 0);
  const unknown = results.reduce((n, r) => n + (r.previews?.oracleFailed.length ?? 0), 0);
  const byVerdict = (v: string, method?: string) => pages.filter((p) => p.verdict === v && (!method || p.method === method)).length;
  const methods = [...new Set(pages.map((p) => p.method))].sort();
  const rows = ['| engine | pages | agree (Ghostscript) | agree (poppler or MuPDF) | approximate, said on the page | differ |', '|---|---|---|---|---|---|'];
  for (const m of [...methods, undefined]) {
    const n = m ? pages.filter((p) => p.method === m).length : pages.length;
    rows.push(`| ${m ?? 'all'} | ${n} | ${byVerdict('agree', m)} | ${byVerdict('agree-other', m)} | ${byVerdict('approximate', m)} | ${byVerdict('differ', m)} |`);
  }
  const sorted = (key: 'mean' | 'coarse' | 'missing') =>
    pages
      .map((p) => p.against.ghostscript?.[key])
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => a - b);
  const means = sorted('mean');
  const coarse = sorted('coarse');
  const missing = sorted('missing');
  const q = (xs: number[], f: number) => xs[Math.min(xs.length - 1, Math.floor(f * xs.length))] ?? NaN;
  const row = (xs: number[]) => {
    const band = (lo: number, hi: number) => xs.filter((m) => m >= lo && m < hi).length;
    return `| ${band(0, 1)} | ${band(1, 2)} | ${band(2, 4)} | ${band(4, 8)} | ${band(8, 16)} | ${band(16, 32)} | ${band(32, Infinity)} | ${q(xs, 0.5).toFixed(2)} | ${q(xs, 0.9).toFixed(2)} | ${q(xs, 0.99).toFixed(2)} | ${(xs.at(-1) ?? NaN).toFixed(2)} |`;
  };
  const missesInk = (p: PagePixels) => Math.min(...ORACLE_KEYS.map((o) => p.against[o]?.missing ?? Infinity)) > 0.002;
  const textMissing = pages.filter((p) => p.verdict === 'differ' && missesInk(p)).length;
  // Pages that miss ink against every reader but say why on the page (a substitute font's glyphs, an image that cannot be decoded…).
  const saidMissing = pages.filter((p) => p.verdict === 'approximate' && missesInk(p)).length;
  return [
    `${pages.length} pages compared (${failed} not rendered by us, ${unknown} drawn by no oracle).`,
    '',
    ...rows,
    '',
    'Mean absolute difference per channel (0–255) from Ghostscript, pages per band: per pixel, and over 4 × 4 px cells (what the verdict uses):',
    '',
    '| measure | < 1 | 1–2 | 2–4 | 4–8 | 8–16 | 16–32 | ≥ 32 | p50 | p90 | p99 | max |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    `| per pixel ${row(means)}`,
    `| 4 px cells ${row(coarse)}`,
    '',
    `Share of the page Ghostscript inks and we leave blank: p90 ${pct(q(missing, 0.9))}, p99 ${pct(q(missing, 0.99))}; pages with more than 0.2 % missing against every reader (visible text or artwork missing): ${textMissing}, and ${saidMissing} more whose report says on the page why its preview is approximate.`,
  ].join('\n');
}

const ORACLE_KEYS = ['ghostscript', 'poppler', 'mupdf'] as const;

/** The figures as a table (Markdown), for the README and the console. */
export function formatSummary(s: Summary): string {
  const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(2)} %` : '–');
  const rows = ASPECTS.map((a) => {
    const explained = s.explained.filter((d) => d.aspect === a).reduce((n, d) => n + d.count, 0);
    const n = (x: number) => x.toLocaleString('en-US');
    return `| ${a} | ${n(s.agreed[a])} / ${n(s.compared[a])} | ${pct(s.agreed[a], s.compared[a])} | ${n(explained)} | ${pct(s.agreed[a] + explained, s.compared[a])} |`;
  });
  return [
    `${s.files} files (${s.skipped} skipped: need a password); ${s.explained.length} known differences, ${s.unexplained.length} new; ${s.pagesNotInspected} pages whose content could not be inspected.`,
    `Not compared: ${s.patternImages.toLocaleString('en-US')} images inside tiling patterns (pdfimages does not list them), ${s.maskGroupImages.toLocaleString('en-US')} images only in soft-mask groups (pdfimages lists them as drawn).`,
    '',
    '| aspect | agreed / compared | agreement | reviewed differences | agreed or explained |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

async function maskImagesOf(bytes: Uint8Array): Promise<Set<string>> {
  try {
    // pdf-lib reports what it skips on the console; the figures are what this run prints.
    const { log, warn } = console;
    console.log = console.warn = () => undefined;
    try {
      const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
      return softMaskGroupImages(doc.context);
    } finally {
      Object.assign(console, { log, warn });
    }
  } catch {
    return new Set();
  }
}

/** One file through both sides; with a pool, its previews against the oracles' renderings too. */
export async function compareFile(file: string, path: string, bytes: Uint8Array, pool?: PreflightPool): Promise<FileResult> {
  const ours = await ourFacts(bytes);
  if (ours.document.encryption?.needsPassword) {
    return { file, patternImages: 0, maskGroupImages: 0, pagesNotInspected: 0, compared: zeroes(), agreed: zeroes(), differences: [], skipped: 'needs a password' };
  }
  const oracle = await oracleFacts(path, ours.document.pageCount, await maskImagesOf(bytes));
  const previews = pool ? await comparePreviews(path, bytes, pool) : undefined;
  return compareFacts(file, ours.facts, oracle, previews);
}
