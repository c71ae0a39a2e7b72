/**
 * Structural inspection of a whole PDF: pages, boxes, /Rotate, /UserUnit, images and colour use,
 * without decoding a pixel. The result is plain data ({@link DocumentFacts}) for the checks.
 */
import type { PDFContext, PDFDict, PDFObject } from './pdf-lib.js';
import { parsePdf, quietly } from './parse.js';
import { BudgetExceededError, DecodeBudget } from './decode-budget.js';
import type { DecodeLimits } from './decode-limits.js';
import { RendererScreen, DEFAULT_SCREEN_LIMITS, type ScreenLimits } from './screen.js';
import { printableAppearances, printableWidgetCount, printableWithoutAppearance, undrawnPrintableFields, widgetFieldChains } from './annotations.js';
import { ColourSpaceResolver } from './colour-space.js';
import { ContentScanner, DEFAULT_SCAN_LIMITS, type ScanLimits } from './content-scan.js';
import { analyseEncryption, firstFileId, type EncryptionInfo } from './encryption.js';
import type { DocumentFacts, DocumentProblem, PageFacts } from './facts.js';
import type { Rect } from '../model/geometry.js';
import { activeContent, maxNesting, nestedDeeperThan, streamLengthProblem, xrefProblem } from './integrity.js';
import { N, PDFRef, dictOf, nameOf, numberOf, rectOf, refLabel, resolve } from './objects.js';
import { recoverObjectStreams } from './object-streams.js';
import { grouped } from '../util/text.js';
import { OptionalContent } from './optional-content.js';
import { walkPageTree, type PageNode } from './page-tree.js';
import { recoverDictionary } from './recover.js';
import { DEFAULT_FONT_LIMITS, FontPrograms, type FontProgramLimits } from './font/program.js';
import { decodeStream, type StreamDecryptor, type StreamReader } from './streams.js';
import { ptToMm, round } from './units.js';

export interface InspectOptions {
  /** Largest decoded size of one content stream, form or ICC profile. Default 256 MiB. */
  maxDecodedStreamBytes?: number;
  /** Most pages read. Default 100,000. */
  maxPages?: number;
  scan?: Partial<ScanLimits>;
  /** The file's decode budget (decode-budget.ts): bytes decoded and interpreted, objects, tokens, time. */
  limits?: Partial<DecodeLimits>;
  /** What a renderer may be given (screen.ts). */
  screen?: Partial<ScreenLimits>;
  /**
   * Where this thread's V8 heap may grow to before the read stops (pdf-too-complex): for a read in
   * a thread no heap cap guards. A pool worker has its own cap (`resourceLimits`).
   */
  heapCeilingBytes?: number;
  /** The budget to charge (instead of a new one from `limits`): to read what a file spent. */
  budget?: DecodeBudget;
  /** Limits of the embedded-font checks (program size, glyph work). */
  fonts?: Partial<FontProgramLimits>;
  /** Given the parsed pdf-lib document, for a caller that reads more from it (image streams). */
  onDocument?: (context: PDFContext) => void;
}

const DEFAULTS = { maxDecodedStreamBytes: 256 * 1024 * 1024, maxPages: 100_000 };
/** Page objects read again from the bytes at most (pdf/recover.ts); later broken entries are unreadable pages. */
/** The largest /UserUnit (ISO 32000-2 Annex C, implementation limits). */
const MAX_USER_UNIT = 75_000;
const MAX_RECOVERED_PAGES = 64;
/** A widget deeper in its form's field tree than this, or the page's widgets this deep together, keep the page from renderers (annotations.ts). */
const MAX_FIELD_DEPTH = 256;
const MAX_FIELD_CHAIN_STEPS = 20_000;
/** Deeper nesting of arrays/dictionaries is refused (real files stay far below; PDF's own limit advice is 28). */
const MAX_OBJECT_NESTING = 256;

import { looksLikePdfObjects, pdfHeaderVersion, withHeader } from './header.js';
export { pdfHeaderVersion };

/** True when the last "%%EOF" marker is missing: the file was cut short. */
export function looksTruncated(bytes: Uint8Array): boolean {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + Math.max(0, bytes.length - 65536), Math.min(bytes.length, 65536));
  return tail.lastIndexOf('%%EOF') < 0;
}

/**
 * Inspects the structure of a PDF held in memory.
 * @example
 * const facts = await inspectPdf(new Uint8Array(await readFile('a.pdf')));
 * facts.pages[0].widthMm;
 */
export async function inspectPdf(bytes: Uint8Array, options: InspectOptions = {}): Promise<DocumentFacts> {
  const maxDecoded = options.maxDecodedStreamBytes ?? DEFAULTS.maxDecodedStreamBytes;
  const maxPages = options.maxPages ?? DEFAULTS.maxPages;
  const scanLimits = { ...DEFAULT_SCAN_LIMITS, ...options.scan };
  const facts: DocumentFacts = { bytes: bytes.length, pdfVersion: null, encryption: null, problems: [], activeContent: [], pageCount: null, pages: [] };
  const problem = (kind: DocumentProblem['kind'], detail: string) => facts.problems.push({ kind, detail });
  let fileTooComplex = false;
  const budget = options.budget ?? new DecodeBudget(options.limits, options.heapCeilingBytes !== undefined ? { heapCeilingBytes: options.heapCeilingBytes } : {});
  try {
    fileTooComplex = await inspectWithin(bytes, options, budget, facts, problem, maxDecoded, maxPages, scanLimits);
  } catch (error) {
    if (!(error instanceof BudgetExceededError)) throw error;
  }
  // A spent budget stops the read wherever it was; what was read stands, and the file gets its finding.
  if (budget.exceeded) problem(budget.exceeded.isTime ? 'timeout' : 'too-complex', budget.exceeded.message);
  for (const bound of budget.bounded) problem('too-complex', `the file has ${bound}`);
  if (budget.exceeded || budget.bounded.size || fileTooComplex) facts.unrenderable = true;
  return facts;
}

async function inspectWithin(
  bytes: Uint8Array,
  options: InspectOptions,
  budget: DecodeBudget,
  facts: DocumentFacts,
  problem: (kind: DocumentProblem['kind'], detail: string) => void,
  maxDecoded: number,
  maxPages: number,
  scanLimits: ScanLimits,
): Promise<boolean> {
  if (bytes.length === 0) {
    problem('not-pdf', 'the file is empty (0 bytes)');
    return false;
  }
  facts.pdfVersion = pdfHeaderVersion(bytes);
  let parseBytes = bytes;
  if (facts.pdfVersion === null) {
    if (!looksLikePdfObjects(bytes)) {
      problem('not-pdf', `there is no %PDF- header in the first 1024 bytes (the file starts with ${describeStart(bytes)})`);
      return false;
    }
    // PDF objects without the header: readers (qpdf, poppler, pdf.js) read it and so do we.
    problem('repaired', 'the file has no %PDF- header, though it holds PDF objects');
    parseBytes = withHeader(bytes);
  }

  // Checked on the bytes first: pdf-lib's recursive parser would drop (or overflow on) the object.
  if (nestedDeeperThan(bytes, MAX_OBJECT_NESTING)) {
    problem('too-complex', `arrays or dictionaries are nested more than ${MAX_OBJECT_NESTING} deep; readers stop far sooner (a parser attack?)`);
    return false;
  }
  let context: PDFContext;
  try {
    context = await quietly(() => parsePdf(parseBytes, budget));
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    const detail = (error as Error).message.split('\n')[0]!.replace(/^Failed to parse PDF document \(([^)]*)\): /, '$1: ');
    problem(
      'damaged',
      looksTruncated(bytes)
        ? `the file ends before its end-of-file marker (%%EOF): it was cut short, probably during upload or download, and its objects cannot be read (${detail})`
        : `the file cannot be parsed (${detail})`,
    );
    return false;
  }
  options.onDocument?.(context);

  let encryption: EncryptionInfo | undefined;
  const encryptDict = dictOf(resolve(context, context.trailerInfo.Encrypt));
  if (encryptDict) {
    encryption = analyseEncryption(context, encryptDict, firstFileId(context, resolve(context, context.trailerInfo.ID)));
    facts.encryption = encryption.facts;
    if (encryption.facts.needsPassword) return false;
    if (encryption.decryptor) await recoverObjectStreams(bytes, context, encryption.decryptor, budget);
  }

  const truncated = looksTruncated(bytes);
  let catalog = dictOf(resolve(context, context.trailerInfo.Root));
  if (!catalog) {
    // No trailer (or a broken one): look for the catalog itself, as repairing readers do.
    catalog = findCatalog(context);
    if (!catalog) {
      // It starts like a PDF: a damaged one, not some other kind of file.
      problem('damaged', 'the file has no usable document catalog (/Root), so no page tree can be found');
      return false;
    }
    if (!truncated) problem('repaired', 'the trailer does not name the document catalog; it had to be searched for');
  }
  // Before any bound below can stop the read: a script is reported whatever else is wrong.
  facts.activeContent = activeContent(context);
  const nesting = maxNesting(context, MAX_OBJECT_NESTING);
  if (nesting > MAX_OBJECT_NESTING) {
    problem('too-complex', `arrays or dictionaries are nested more than ${MAX_OBJECT_NESTING} deep; readers stop far sooner (a parser attack?)`);
    return false;
  }
  let tooComplex = false;
  if (!truncated) {
    const xref = safely(() => xrefProblem(bytes, context, budget), { kind: 'repaired' as const, detail: 'the cross-reference data cannot be read' });
    const length = xref ? null : safely(() => streamLengthProblem(context, bytes), null);
    tooComplex = xref?.kind === 'too-complex';
    if (xref?.kind === 'damaged' || xref?.kind === 'too-complex') problem(xref.kind, xref.detail);
    else if ((xref || length) && !facts.problems.some((p) => p.kind === 'repaired')) problem('repaired', xref?.detail ?? length!);
  }
  const pagesEntry = catalog.get(N('Pages'));
  if (!pagesEntry) {
    problem('damaged', noPageTree(context, catalog));
    // qpdf, MuPDF and poppler read no pages in such a file.
    facts.pageCount = 0;
    return false;
  }
  // Each attempt searches the file: a bounded number, so a tree of broken entries cannot make it quadratic.
  let recoveries = 0;
  const recover = (ref: PDFRef) => (recoveries++ < MAX_RECOVERED_PAGES ? safely(() => recoverDictionary(parseBytes, context, ref), undefined) : undefined);
  const tree = walkPageTree(context, pagesEntry, maxPages, recover);
  for (const p of tree.problems) problem(p.startsWith('more than') ? 'too-complex' : 'damaged', p);
  const rootNode = dictOf(resolve(context, pagesEntry));
  const declared = numberOf(resolve(context, rootNode?.get(N('Count'))));
  const cutShort = tree.problems.some((p) => p.startsWith('more than'));
  if (declared !== undefined && declared !== tree.pages.length && !cutShort) {
    problem('damaged', `the page tree declares ${declared} pages but ${tree.pages.length} can be read`);
  }
  // qpdf, MuPDF, poppler and Ghostscript take the number of pages from the root's /Count: without
  // one they read no pages, whatever its /Kids hold. Such a file is damaged, and has no pages here either.
  const noCount = rootNode !== undefined && declared === undefined;
  if (noCount) {
    problem(
      'damaged',
      nameOf(resolve(context, rootNode.get(N('Type')))) === 'Page'
        ? "the catalog's /Pages is a page, not a page tree: qpdf and MuPDF read no pages in the file"
        : 'the page tree has no /Count (or not a number): qpdf, MuPDF, poppler and Ghostscript read no pages in the file',
    );
  }
  const pages = noCount ? [] : tree.pages;
  facts.pageCount = pages.length;
  if (truncated) problem('damaged', 'the file has no %%EOF marker at its end: it was cut short (an incomplete upload or download?)');

  const readStream = streamReader(context, maxDecoded, encryption?.decryptor, budget);
  const colourSpaces = new ColourSpaceResolver(context, readStream);
  const screen = new RendererScreen(context, readStream, { ...DEFAULT_SCREEN_LIMITS, ...options.screen });
  const optionalContent = OptionalContent.fromCatalog(context, catalog, budget);
  const fontPrograms = new FontPrograms(context, readStream, { ...DEFAULT_FONT_LIMITS, ...options.fonts });
  let renderMs = 0;
  pages.forEach((node, i) => {
    const label = refLabel(node.ref) ?? 'a direct object';
    if (node.recovered !== undefined) {
      problem(
        'repaired',
        node.recovered
          ? `page ${i + 1}: its page object (${label}) has syntax errors; it was read leniently (${node.recovered} unreadable token${node.recovered === 1 ? '' : 's'} skipped), as qpdf and PDFium read it`
          : `page ${i + 1}: its page object (${label}) was lost to the object before it, which has no endobj; it was read again from the file`,
      );
    }
    // Renderers draw the pages one after another: past the file's render budget, no more of them,
    // and the pages after are not read either (the file is too complex to draw as it is).
    const overFileBudget = renderMs > scanLimits.maxFileRenderMs;
    const page = inspectPage(context, node, i + 1, { colourSpaces, readStream, scanLimits, optionalContent, budget, screen, fontPrograms, skipContent: overFileBudget });
    if (overFileBudget) {
      page.tooComplex = true;
      page.facts.tooComplex = true;
      page.facts.notes.push(`not inspected: the pages before it already take a renderer more than the ${grouped(scanLimits.maxFileRenderMs / 1000)} s a file may take; it is not rendered`);
    } else if (!page.tooComplex && !page.facts.unreadable && i < scanLimits.renderedPages) {
      renderMs += page.facts.renderWork?.estimatedMs ?? 0;
      if (renderMs > scanLimits.maxFileRenderMs) {
        page.tooComplex = true;
        page.facts.tooComplex = true;
        page.facts.notes.push(`drawing the file's pages up to this one would take a renderer more than the ${grouped(scanLimits.maxFileRenderMs / 1000)} s a file may take; it is not rendered`);
      }
    }
    facts.pages.push(page.facts);
    // Once the file's budget is spent, its finding says so once, not once per page.
    if (page.tooComplex && !(budget.exceeded && page.facts.notes.every((n) => n.startsWith('not inspected')))) {
      problem('too-complex', `page ${i + 1}: ${page.facts.notes.join('; ')}`);
    }
    for (const d of page.damage) problem('damaged', `page ${i + 1}: ${d}`);
  });
  return tooComplex;
}

function inspectPage(
  context: PDFContext,
  node: PageNode,
  index: number,
  shared: {
    colourSpaces: ColourSpaceResolver;
    readStream: StreamReader;
    scanLimits: ScanLimits;
    optionalContent: OptionalContent;
    budget: DecodeBudget;
    screen: RendererScreen;
    fontPrograms: FontPrograms;
    /** The page's content and annotations are not read (its boxes are). */
    skipContent?: boolean;
  },
): { facts: PageFacts; tooComplex: boolean; damage: string[] } {
  const { colourSpaces, readStream, scanLimits, optionalContent, budget, screen, fontPrograms } = shared;
  const notes: string[] = [];
  const { dict, inherited } = node;
  let media = rectOf(context, inherited.MediaBox);
  if (!media || area(media) === 0) {
    notes.push('the page has no valid /MediaBox; US Letter (612 × 792 pt) assumed, as viewers do');
    media = [0, 0, 612, 792];
  }
  const crop = rectOf(context, inherited.CropBox) ?? null;
  const box = (key: string) => rectOf(context, dict.get(N(key))) ?? null;
  let checkedBox = crop ? intersect(crop, media) : media;
  if (!checkedBox) {
    notes.push('the /CropBox lies outside the /MediaBox; the MediaBox is used');
    checkedBox = media;
  }
  const rawRotate = numberOf(resolve(context, inherited.Rotate)) ?? 0;
  let rotate = (((Math.round(rawRotate) % 360) + 360) % 360) as number;
  if (rotate % 90 !== 0) {
    notes.push(`/Rotate ${rawRotate} is not a multiple of 90 and is ignored, as viewers do`);
    rotate = 0;
  }
  const uu = numberOf(resolve(context, dict.get(N('UserUnit'))));
  // ISO 32000-2 Annex C: UserUnit is at most 75,000; past it (or not a positive number) viewers use 1.
  let userUnit = uu !== undefined && uu > 0 && uu <= MAX_USER_UNIT ? uu : 1;
  if (uu !== undefined && userUnit !== uu) notes.push(`/UserUnit ${uu} is invalid (it must be above 0 and at most ${grouped(MAX_USER_UNIT)}); 1 is used`);
  // Every page size finite: a box whose size overflows (corners near ±1.8e308, or with its
  // UserUnit) is measured as US Letter, said in a note, instead of a page Infinity mm wide.
  const spans = (b: Rect, u: number) => [ptToMm((b[2] - b[0]) * u), ptToMm((b[3] - b[1]) * u)] as const;
  if (!spans(checkedBox, userUnit).every(Number.isFinite)) {
    if (userUnit !== 1 && spans(checkedBox, 1).every(Number.isFinite)) {
      notes.push(`/UserUnit ${uu} makes the page too large to measure; 1 is used`);
      userUnit = 1;
    } else {
      notes.push('the page box is too large to measure; US Letter (612 × 792 pt) assumed');
      media = [0, 0, 612, 792];
      checkedBox = media;
      userUnit = 1;
    }
  }
  const [w, h] = spans(checkedBox, userUnit);
  const turned = rotate === 90 || rotate === 270;

  const scanner = new ContentScanner(context, colourSpaces, readStream, userUnit, scanLimits, optionalContent, { budget, screen, fontPrograms });
  const resources = dictOf(resolve(context, inherited.Resources)) as PDFDict | undefined;
  const readable = node.unreadable === undefined && !shared.skipContent;
  // Annotations are read under the file's budget too: once it is spent, the page has none to add.
  const withinBudget = <T>(fn: () => T, none: T): T => {
    try {
      return fn();
    } catch (error) {
      if (!(error instanceof BudgetExceededError)) throw error;
      return none;
    }
  };
  const appearances = readable ? withinBudget(() => printableAppearances(context, dict, optionalContent), []) : [];
  const generated = readable ? withinBudget(() => printableWithoutAppearance(context, dict, optionalContent), 0) : 0;
  const scan = scanner.scanPage(shared.skipContent ? undefined : dict.get(N('Contents')), resources, appearances, checkedBox, area(media));
  const widgets = readable ? withinBudget(() => printableWidgetCount(context, dict, optionalContent), 0) : 0;
  const fields = readable ? withinBudget(() => widgetFieldChains(context, dict), { total: 0, deepest: 0 }) : { total: 0, deepest: 0 };
  if (fields.deepest > MAX_FIELD_DEPTH || fields.total > MAX_FIELD_CHAIN_STEPS) {
    scan.tooComplex = true;
    scan.notes.push(
      `its form fields sit ${grouped(fields.deepest)} levels deep in the form's field tree (${grouped(fields.total)} levels for all its widgets; a renderer walks each chain again for every property: more than ${MAX_FIELD_DEPTH} deep, or ${grouped(MAX_FIELD_CHAIN_STEPS)} together, is too many); the page is not rendered`,
    );
  }
  const undrawn = widgets ? withinBudget(() => undrawnPrintableFields(context, dict, optionalContent), 0) : 0;
  if (node.unreadable !== undefined) notes.push(`page content could not be inspected: ${node.unreadable}`);
  return {
    tooComplex: scan.tooComplex,
    damage: scan.damage,
    facts: {
      index,
      ref: refLabel(node.ref),
      boxes: { media, crop, trim: box('TrimBox'), bleed: box('BleedBox'), art: box('ArtBox') },
      checkedBox,
      rotate: rotate as PageFacts['rotate'],
      userUnit,
      widthMm: round(turned ? h : w, 3),
      heightMm: round(turned ? w : h, 3),
      images: scan.images,
      colours: scan.colours,
      fonts: scan.fonts,
      ...(appearances.length ? { printableAnnotations: appearances.length } : {}),
      ...(generated ? { generatedAnnotations: generated } : {}),
      notes: [...notes, ...scan.notes],
      tooComplex: scan.tooComplex,
      ...(scan.tiling ? { tiling: scan.tiling } : {}),
      marks: scan.marks,
      transparency: scan.transparency,
      printableWidgets: widgets,
      ...(undrawn ? { undrawnFields: undrawn } : {}),
      ...(scan.hazards.indexedOutOfRange || scan.hazards.damagedInlineImages ? { hazards: scan.hazards } : {}),
      renderWork: scan.renderWork,
      ...(node.unreadable !== undefined ? { unreadable: node.unreadable } : {}),
    },
  };
}

function streamReader(context: PDFContext, maxBytes: number, decrypt: StreamDecryptor | undefined, budget: DecodeBudget): StreamReader {
  const refs = decrypt ? reverseRefs(context) : undefined;
  const reader: StreamReader = (stream, options) => {
    const ref = refs?.get(stream);
    const limit = Math.min(options?.maxBytes ?? maxBytes, maxBytes);
    return decodeStream(context, stream, {
      maxBytes: limit,
      decrypt,
      ref,
      budget,
      untilImageFilter: options?.untilImageFilter,
      prefix: options?.prefix,
      what: options?.what,
    });
  };
  return reader;
}

function reverseRefs(context: PDFContext): Map<PDFObject, PDFRef> {
  const map = new Map<PDFObject, PDFRef>();
  for (const [ref, obj] of context.enumerateIndirectObjects()) map.set(obj, ref);
  return map;
}

/** The integrity checks read raw bytes of a hostile file: a slip there is a finding, never a crash (a spent budget goes on up). */
function safely<T>(check: () => T, fallback: T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    return fallback;
  }
}

/**
 * Why the catalog the trailer names gives no pages: it has no /Pages; when it is not a catalog at
 * all (the trailer's /Root names the Info dictionary, pdf.js issue9418.pdf) and the file holds one,
 * that is said too — pdf.js and Ghostscript would print that catalog's pages, qpdf, MuPDF and
 * poppler none, so what prints depends on the reader.
 */
function noPageTree(context: PDFContext, root: PDFDict): string {
  const type = nameOf(root.get(N('Type')));
  if (type === 'Catalog') return 'the document catalog has no page tree (/Pages)';
  const ref = context.trailerInfo.Root instanceof PDFRef ? ` (${context.trailerInfo.Root.objectNumber} ${context.trailerInfo.Root.generationNumber} R)` : '';
  const looksLikeInfo = ['Producer', 'Creator', 'CreationDate', 'Title', 'Author'].some((k) => root.has(N(k)));
  const what = type ? `a /${type} dictionary` : looksLikeInfo ? 'the document information dictionary' : 'a dictionary without /Pages';
  const other = findCatalog(context);
  const otherRef = other ? refOf(context, other) : undefined;
  return (
    `the trailer's /Root${ref} names ${what}, not the document catalog, so the file has no page tree: qpdf, MuPDF and poppler read no pages` +
    (other ? `; a catalog${otherRef ? ` (${otherRef})` : ''} that other readers may print from is elsewhere in the file` : '')
  );
}

function refOf(context: PDFContext, obj: PDFObject): string | undefined {
  for (const [ref, o] of context.enumerateIndirectObjects()) if (o === obj) return `${ref.objectNumber} ${ref.generationNumber} R`;
  return undefined;
}

function findCatalog(context: PDFContext): PDFDict | undefined {
  for (const [, obj] of context.enumerateIndirectObjects()) {
    const dict = dictOf(obj);
    if (dict && nameOf(dict.get(N('Type'))) === 'Catalog' && dict.get(N('Pages'))) return dict;
  }
  return undefined;
}

function area(r: Rect): number {
  return (r[2] - r[0]) * (r[3] - r[1]);
}

function intersect(a: Rect, b: Rect): Rect | undefined {
  const r: Rect = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return r[2] > r[0] && r[3] > r[1] ? r : undefined;
}

function describeStart(bytes: Uint8Array): string {
  const sigs: [string, number[]][] = [
    ['a PNG signature', [0x89, 0x50, 0x4e, 0x47]],
    ['a JPEG signature', [0xff, 0xd8, 0xff]],
    ['a ZIP signature', [0x50, 0x4b, 0x03, 0x04]],
    ['a TIFF signature', [0x49, 0x49, 0x2a, 0x00]],
    ['a TIFF signature', [0x4d, 0x4d, 0x00, 0x2a]],
    ['a GIF signature', [0x47, 0x49, 0x46, 0x38]],
  ];
  for (const [label, sig] of sigs) if (sig.every((b, i) => bytes[i] === b)) return label;
  const text = Buffer.from(bytes.subarray(0, 16))
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.');
  return `"${text}"`;
}

export type { PDFRef };
