/**
 * Structural inspection of a whole PDF: pages, boxes, /Rotate, /UserUnit, images and colour use,
 * without decoding a pixel. The result is plain data ({@link DocumentFacts}) for the checks.
 */
import { parsePdf, type PDFContext, type PDFDict, type PDFObject } from './pdf-lib.js';
import { printableAppearances } from './annotations.js';
import { ColourSpaceResolver } from './colour-space.js';
import { ContentScanner, DEFAULT_SCAN_LIMITS, type ScanLimits } from './content-scan.js';
import { analyseEncryption, firstFileId, type EncryptionInfo } from './encryption.js';
import type { DocumentFacts, DocumentProblem, PageFacts, Rect } from './facts.js';
import { activeContent, maxNesting, nestedDeeperThan, streamLengthProblem, xrefProblem } from './integrity.js';
import { N, PDFRawStream, PDFRef, dictOf, nameOf, numberOf, rectOf, refLabel, resolve } from './objects.js';
import { recoverObjectStreams } from './object-streams.js';
import { OptionalContent } from './optional-content.js';
import { walkPageTree, type PageNode } from './page-tree.js';
import { decodeStream, type StreamDecryptor, type StreamReader } from './streams.js';
import { ptToMm, round } from './units.js';

export interface InspectOptions {
  /** Largest decoded size of one content stream, form or ICC profile. Default 256 MiB. */
  maxDecodedStreamBytes?: number;
  /** Most pages read. Default 100,000. */
  maxPages?: number;
  scan?: Partial<ScanLimits>;
  /** Given the parsed pdf-lib document, for a caller that reads more from it (image streams). */
  onDocument?: (context: PDFContext) => void;
}

const DEFAULTS = { maxDecodedStreamBytes: 256 * 1024 * 1024, maxPages: 100_000 };
/** Deeper nesting of arrays/dictionaries is refused (real files stay far below; PDF's own limit advice is 28). */
const MAX_OBJECT_NESTING = 256;

/** Finds "%PDF-x.y" in the first 1024 bytes; returns the version or null. */
export function pdfHeaderVersion(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  const at = head.indexOf('%PDF-');
  if (at < 0) return null;
  const m = /^%PDF-(\d+\.\d+)/.exec(head.slice(at));
  return m ? m[1]! : '?';
}

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

  if (bytes.length === 0) {
    problem('not-pdf', 'the file is empty (0 bytes)');
    return facts;
  }
  facts.pdfVersion = pdfHeaderVersion(bytes);
  let parseBytes = bytes;
  if (facts.pdfVersion === null) {
    if (!looksLikePdfObjects(bytes)) {
      problem('not-pdf', `there is no %PDF- header in the first 1024 bytes (the file starts with ${describeStart(bytes)})`);
      return facts;
    }
    // PDF objects without the header: readers (qpdf, poppler, pdf.js) read it and so do we.
    problem('repaired', 'the file has no %PDF- header, though it holds PDF objects');
    parseBytes = withHeader(bytes);
  }

  // Checked on the bytes first: pdf-lib's recursive parser would drop (or overflow on) the object.
  if (nestedDeeperThan(bytes, MAX_OBJECT_NESTING)) {
    problem('too-complex', `arrays or dictionaries are nested more than ${MAX_OBJECT_NESTING} deep; readers stop far sooner (a parser attack?)`);
    return facts;
  }
  let context: PDFContext;
  try {
    context = await withQuietConsole(() => parsePdf(parseBytes));
  } catch (error) {
    const detail = (error as Error).message.split('\n')[0]!.replace(/^Failed to parse PDF document \(([^)]*)\): /, '$1: ');
    problem(
      'damaged',
      looksTruncated(bytes)
        ? `the file ends before its end-of-file marker (%%EOF): it was cut short, probably during upload or download, and its objects cannot be read (${detail})`
        : `the file cannot be parsed (${detail})`,
    );
    return facts;
  }
  options.onDocument?.(context);

  let encryption: EncryptionInfo | undefined;
  const encryptDict = dictOf(resolve(context, context.trailerInfo.Encrypt));
  if (encryptDict) {
    encryption = analyseEncryption(context, encryptDict, firstFileId(context, resolve(context, context.trailerInfo.ID)));
    facts.encryption = encryption.facts;
    if (encryption.facts.needsPassword) return facts;
    if (encryption.decryptor) await recoverObjectStreams(bytes, context, encryption.decryptor);
  }

  const truncated = looksTruncated(bytes);
  let catalog = dictOf(resolve(context, context.trailerInfo.Root));
  if (!catalog) {
    // No trailer (or a broken one): look for the catalog itself, as repairing readers do.
    catalog = findCatalog(context);
    if (!catalog) {
      // It starts like a PDF: a damaged one, not some other kind of file.
      problem('damaged', 'the file has no usable document catalog (/Root), so no page tree can be found');
      return facts;
    }
    if (!truncated) problem('repaired', 'the trailer does not name the document catalog; it had to be searched for');
  }
  const nesting = maxNesting(context, MAX_OBJECT_NESTING);
  if (nesting > MAX_OBJECT_NESTING) {
    problem('too-complex', `arrays or dictionaries are nested more than ${MAX_OBJECT_NESTING} deep; readers stop far sooner (a parser attack?)`);
    return facts;
  }
  if (!truncated) {
    const xref = safely(() => xrefProblem(bytes, context), { kind: 'repaired' as const, detail: 'the cross-reference data cannot be read' });
    const length = xref ? null : safely(() => streamLengthProblem(context, bytes), null);
    if (xref?.kind === 'damaged') problem('damaged', xref.detail);
    else if ((xref || length) && !facts.problems.some((p) => p.kind === 'repaired')) problem('repaired', xref?.detail ?? length!);
  }
  facts.activeContent = activeContent(context);
  const pagesEntry = catalog.get(N('Pages'));
  if (!pagesEntry) {
    problem('damaged', 'the document catalog has no page tree (/Pages)');
    return facts;
  }
  const tree = walkPageTree(context, pagesEntry, maxPages);
  for (const p of tree.problems) problem(p.startsWith('more than') ? 'too-complex' : 'damaged', p);
  const declared = numberOf(resolve(context, dictOf(resolve(context, pagesEntry))?.get(N('Count'))));
  const cutShort = tree.problems.some((p) => p.startsWith('more than'));
  if (declared !== undefined && declared !== tree.pages.length && !cutShort) {
    problem('damaged', `the page tree declares ${declared} pages but ${tree.pages.length} can be read`);
  }
  facts.pageCount = tree.pages.length;
  if (truncated) problem('damaged', 'the file has no %%EOF marker at its end: it was cut short (an incomplete upload or download?)');

  const readStream = streamReader(context, maxDecoded, encryption?.decryptor);
  const colourSpaces = new ColourSpaceResolver(context, readStream);
  const optionalContent = OptionalContent.fromCatalog(context, catalog);
  tree.pages.forEach((node, i) => {
    const page = inspectPage(context, node, i + 1, { colourSpaces, readStream, scanLimits, optionalContent });
    facts.pages.push(page.facts);
    if (page.tooComplex) problem('too-complex', `page ${i + 1}: ${page.facts.notes.join('; ')}`);
    for (const d of page.damage) problem('damaged', `page ${i + 1}: ${d}`);
  });
  return facts;
}

function inspectPage(
  context: PDFContext,
  node: PageNode,
  index: number,
  shared: { colourSpaces: ColourSpaceResolver; readStream: StreamReader; scanLimits: ScanLimits; optionalContent: OptionalContent },
): { facts: PageFacts; tooComplex: boolean; damage: string[] } {
  const { colourSpaces, readStream, scanLimits, optionalContent } = shared;
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
  const userUnit = uu !== undefined && uu > 0 && Number.isFinite(uu) ? uu : 1;
  if (uu !== undefined && userUnit !== uu) notes.push(`/UserUnit ${uu} is invalid; 1 is used`);
  const w = ptToMm((checkedBox[2] - checkedBox[0]) * userUnit);
  const h = ptToMm((checkedBox[3] - checkedBox[1]) * userUnit);
  const turned = rotate === 90 || rotate === 270;

  const scanner = new ContentScanner(context, colourSpaces, readStream, userUnit, scanLimits, optionalContent);
  const resources = dictOf(resolve(context, inherited.Resources)) as PDFDict | undefined;
  const appearances = printableAppearances(context, dict, optionalContent);
  const scan = scanner.scanPage(dict.get(N('Contents')), resources, appearances, checkedBox);
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
      notes: [...notes, ...scan.notes],
      tooComplex: scan.tooComplex,
      marks: scan.marks,
    },
  };
}

function streamReader(context: PDFContext, maxBytes: number, decrypt: StreamDecryptor | undefined): StreamReader {
  const refs = decrypt ? reverseRefs(context) : undefined;
  const reader: StreamReader = (stream, options) => {
    const ref = refs?.get(stream);
    const limit = Math.min(options?.maxBytes ?? maxBytes, maxBytes);
    return decodeStream(context, stream, { maxBytes: limit, decrypt, ref, untilImageFilter: options?.untilImageFilter });
  };
  return reader;
}

function reverseRefs(context: PDFContext): Map<PDFObject, PDFRef> {
  const map = new Map<PDFObject, PDFRef>();
  for (const [ref, obj] of context.enumerateIndirectObjects()) map.set(obj, ref);
  return map;
}

/** The integrity checks read raw bytes of a hostile file: a slip there is a finding, never a crash. */
function safely<T>(check: () => T, fallback: T): T {
  try {
    return check();
  } catch {
    return fallback;
  }
}

/** "1 0 obj" near the start, as in a PDF whose header was lost. */
function looksLikePdfObjects(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  return /(^|[\r\n])\s*\d+\s+\d+\s+obj\b/.test(head);
}

function withHeader(bytes: Uint8Array): Uint8Array {
  const header = Buffer.from('%PDF-1.7\n', 'latin1');
  const out = new Uint8Array(header.length + bytes.length);
  out.set(header);
  out.set(bytes, header.length);
  return out;
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
  const text = Buffer.from(bytes.subarray(0, 16)).toString('latin1').replace(/[^\x20-\x7e]/g, '.');
  return `"${text}"`;
}

/** pdf-lib reports recoverable parse problems on console.warn/log; keep library output clean. */
async function withQuietConsole<T>(fn: () => Promise<T>): Promise<T> {
  const { warn, log, error } = console;
  console.warn = console.log = console.error = () => undefined;
  try {
    return await fn();
  } finally {
    Object.assign(console, { warn, log, error });
  }
}

export type { PDFRef };
