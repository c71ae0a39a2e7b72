/**
 * pdf.js in Node: the legacy build (the modern one needs DOMMatrix), with its font and CMap data
 * given as plain folders, script evaluation off, and its own canvas factory (@napi-rs/canvas).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';
import { CJK_FALLBACK_FAMILY, systemCjkFace } from './cjk-face.js';
import { SoftMaskFilterFactory, withSoftMasks } from './soft-mask.js';
import { commitNativeMemoryOnDemand } from './native-memory.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let loaded: Promise<PdfJs> | undefined;

export function pdfjs(): Promise<PdfJs> {
  // In the calling thread (`pool: false`), before pdf.js loads the canvas library.
  commitNativeMemoryOnDemand();
  loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return loaded;
}

let dataDirs: { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } | undefined;
function dirs() {
  if (!dataDirs) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    dataDirs = {
      standardFontDataUrl: `${join(root, 'standard_fonts')}/`,
      cMapUrl: `${join(root, 'cmaps')}/`,
      wasmUrl: `${join(root, 'wasm')}/`,
    };
  }
  return dataDirs;
}

/** Opens a PDF with pdf.js. `bytes` is copied: pdf.js detaches the buffer it is given. */
export async function openWithPdfjs(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: new Uint8Array(bytes),
    ...dirs(),
    cMapPacked: true,
    isEvalSupported: false,
    enableXfa: false,
    verbosity: 1, // warnings: collected by captureWarnings() into the page's raster facts
    stopAtErrors: false,
    // Soft masks: pdf.js's Node filter factory draws luminosity masks as plain alpha (soft-mask.ts).
    FilterFactory: SoftMaskFilterFactory as never,
  });
  const doc = await task.promise;
  withSoftMasks(doc.canvasFactory as Parameters<typeof withSoftMasks>[0]);
  return doc;
}

let cjkRegistered: boolean | undefined;

/**
 * Registers the system CJK face (cjk-face.ts) with pdf.js's copy of the canvas library, once; true
 * when the canvas can draw with it.
 */
export function registerCjkFace(): boolean {
  if (cjkRegistered === undefined) {
    const face = systemCjkFace();
    cjkRegistered = false;
    if (face) {
      try {
        // pdf.js loads @napi-rs/canvas from its own folder: the same copy must hold the face.
        const canvas = createRequire(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))('@napi-rs/canvas') as {
          GlobalFonts: { registerFromPath(path: string, alias?: string): unknown };
        };
        cjkRegistered = canvas.GlobalFonts.registerFromPath(face.file, CJK_FALLBACK_FAMILY) != null;
      } catch {
        cjkRegistered = false;
      }
    }
  }
  return cjkRegistered;
}

const collectors = new Set<Set<string>>();
let originalWarn: typeof console.warn | undefined;

/**
 * Runs `fn` while collecting what pdf.js warns about (it writes "Warning: …" to console.warn).
 * One hook serves overlapping calls; it is removed when the last one ends. In a pool worker a
 * page is rendered at a time, so each page gets exactly its own warnings.
 */
export async function captureWarnings<T>(fn: () => Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const mine = new Set<string>();
  if (collectors.size === 0) {
    originalWarn = console.warn;
    const passOn = originalWarn;
    console.warn = (...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (!text.startsWith('Warning: ')) return passOn(...args);
      for (const c of collectors) if (c.size < 20) c.add(text.slice('Warning: '.length).trim());
    };
  }
  collectors.add(mine);
  try {
    return { value: await fn(), warnings: [...mine] };
  } finally {
    collectors.delete(mine);
    if (collectors.size === 0 && originalWarn) {
      console.warn = originalWarn;
      originalWarn = undefined;
    }
  }
}

export type { PDFDocumentProxy };

/** pdf.js's words for an image it could not decode or apply (the start of its warning). */
const IMAGE_WARNING =
  /^(Unable to decode image|JpxImage|JBig2|Jbig2Stream|CCITTFaxStream|BMP image|decodeScan|PDFImage|Ignoring \/Mask|Unsupported \/S?Mask|Unsupported SMask|Image dimensions|Bits per component|Decode map|getTransferableImage|GlobalImageCache)|JPEG image|JpegError|JpxError|OpenJPEG/;

/**
 * Whether a pdf.js warning says an image was left out of the drawing (it could not be decoded):
 * the page then gets a second engine's look, and the preview is approximate if no engine draws it.
 * @example
 * isImageFailure('Unable to decode image "img_p0_1": "JpxError: cmap box"'); // true
 * isImageFailure('TT: undefined function: 32'); // false
 */
export function isImageFailure(text: string): boolean {
  return IMAGE_WARNING.test(text) && /unable to decode|error|unsupported/i.test(text);
}
