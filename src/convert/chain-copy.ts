/**
 * A copy of a file for drawing through the one colour chain (issue 48): its DeviceCMYK made
 * ICCBased with the chain's source profile — the document's CMYK OutputIntent, else the default
 * (raster/cmyk-profile.ts). PDFium converts ICCBased colour through its own lcms, so what it draws
 * of the copy is where the colour fix puts the colours, and a before/after comparison measures the
 * fix rather than the gap between PDFium's built-in CMYK formula and the chain (ΔE00 1.8 on a CMYK
 * red). Measured against our own conversion (sharp's lcms), PDFium's drawing of the copy of
 * CMYK 0 100 100 0 is 231,24,34, the chain's exactly; of the original 238,29,35.
 *
 * What is rewritten: `k`/`K` and `/DeviceCMYK cs|CS` in page content, Form XObjects and tiling
 * patterns; the /ColorSpace of shadings and of images up to {@link MAX_CHAIN_IMAGE_PIXELS};
 * DeviceCMYK as the base of Indexed and of uncoloured patterns, and the alternate of Separation
 * and DeviceN; named resources that are DeviceCMYK. Inline images keep their DeviceCMYK (their
 * dictionary cannot name an ICC stream; they are rare in print art), and
 * blending spaces of transparency groups are left as they are (a blending space changes how
 * colours mix, not which colour a value means). pdf.js in Node does not use ICC profiles (its
 * qcms module needs a worker fetch), so only PDFium's drawings are helped.
 */
import { DEFAULT_DECODE_LIMITS, type DecodeBudget } from '../pdf/decode-budget.js';
import type { DecodeLimits } from '../pdf/decode-limits.js';
import { PDFArray, PDFDict, PDFName, PDFRawStream, type PDFContext, type PDFObject, type PDFRef } from '../pdf/pdf-lib.js';
import { isName, isNum } from '../pdf/lexer.js';
import { colourOperators, operatorTable, walkContent } from '../pdf/content/walk.js';
import { dictOf, getName, getNumber, items, resolve } from '../pdf/objects.js';
import { cmykOutputIntent } from '../pdf/output-intent.js';
import { decodeStream, joinContentStreams } from '../pdf/streams.js';
import { defaultCmykProfile } from '../raster/cmyk-profile.js';
import { concatBytes } from '../util/array.js';
import { loadForTransform } from './document.js';

/** The resource name the copy gives the chain's CMYK space (a file's own names are not touched). */
export const CHAIN_CMYK_NAME = 'PPChainCMYK';
/** Largest content stream rewritten (larger ones are drawn as they are). */
const MAX_CONTENT_BYTES = 64 * 1024 * 1024;
/**
 * Images of more pixels keep their DeviceCMYK (drawn by PDFium's formula): PDFium converts an
 * ICCBased image through lcms at about 0.7 s a megapixel on a loaded 2-core machine (a 9-megapixel
 * CMYK image 7.5 s instead of 1.8 s; 1 megapixel 1.0 s instead of 0.2 s), where vector colours cost
 * nothing more. Pages drawn from their one JPEG (raster/fast-path.ts) convert through the chain
 * whatever their size.
 */
export const MAX_CHAIN_IMAGE_PIXELS = 2_000_000;
/** Deepest nesting of direct objects visited. */
const MAX_DEPTH = 64;

/**
 * The bytes of a copy whose DeviceCMYK is ICCBased with the chain's source profile, or null when
 * the file has no DeviceCMYK to rewrite (it draws as it is, byte for byte the same preview).
 * Throws what loading throws (a file past its limits, a page tree that cannot be read).
 * @example
 * const drawn = (await chainCopy(original)) ?? original; // PDFium converts its CMYK through the chain
 */
export async function chainCopy(bytes: Uint8Array, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): Promise<Uint8Array | null> {
  const { doc, budget, pages } = await loadForTransform(bytes, limits);
  const context = doc.context;
  let space: PDFRef | undefined;
  const chainSpace = () => {
    if (!space) {
      const icc = cmykOutputIntent(context, budget) ?? defaultCmykProfile();
      const stream = context.flateStream(icc, { N: 4, Alternate: 'DeviceCMYK' });
      space = context.register(context.obj([PDFName.of('ICCBased'), context.register(stream)]));
    }
    return space;
  };
  let changed = 0;
  const isIccLab = isIccLabIn(context, budget);
  const decode = (s: PDFRawStream) => {
    try {
      return decodeStream(context, s, { maxBytes: MAX_CONTENT_BYTES, budget, what: 'content for the colour chain' });
    } catch {
      return undefined; // content that cannot be decoded is drawn as it is
    }
  };

  // 1. Colour spaces named in objects: images, shadings, Indexed/Separation/DeviceN, resources.
  const seen = new Set<PDFObject>();
  const resourceDicts = new Set<PDFDict>();
  const visit = (obj: PDFObject | undefined, depth: number): void => {
    if (!obj || depth > MAX_DEPTH || seen.has(obj)) return;
    seen.add(obj);
    const dict = obj instanceof PDFRawStream ? obj.dict : obj instanceof PDFDict ? obj : undefined;
    if (dict) {
      const cs = dict.get(PDFName.of('ColorSpace'));
      const isImage = getName(context, dict, 'Subtype') === 'Image';
      const pixels = (getNumber(context, dict, 'Width') ?? 0) * (getNumber(context, dict, 'Height') ?? 0);
      if (isDeviceCmyk(cs) && ((isImage && pixels <= MAX_CHAIN_IMAGE_PIXELS) || dict.has(PDFName.of('ShadingType')))) {
        dict.set(PDFName.of('ColorSpace'), chainSpace());
        changed++;
      }
      const named = dictOf(resolve(context, cs));
      if (named) {
        for (const [key, value] of named.entries()) {
          if (isDeviceCmyk(value)) {
            named.set(key, chainSpace());
            changed++;
          }
        }
      }
      const resources = dictOf(resolve(context, dict.get(PDFName.of('Resources'))));
      if (resources) resourceDicts.add(resources);
      for (const [, value] of dict.entries()) visit(value, depth + 1);
    } else if (obj instanceof PDFArray) {
      if (isIccLab(obj)) {
        // PDFium draws an ICC profile whose data are Lab as if they were RGB (60 10 -30 came out
        // yellow, where poppler and Ghostscript draw a mid blue-violet): the same values as a Lab space
        // (the ICC connection space's D50 white) are drawn as they do.
        const range = resolve(context, dictOf(resolve(context, obj.get(1)))?.get(PDFName.of('Range')));
        const ab =
          range instanceof PDFArray && range.size() === 6
            ? items(context, range)
                .slice(2)
                .map((v) => Number(v?.toString()))
            : [-128, 127, -128, 127];
        obj.set(0, PDFName.of('Lab'));
        obj.set(1, context.obj({ WhitePoint: [0.9642, 1, 0.8249], Range: ab.every(Number.isFinite) ? ab : [-128, 127, -128, 127] }));
        changed++;
        return;
      }
      const family = obj.size() > 1 ? obj.get(0) : undefined;
      const at = family instanceof PDFName ? BASE_AT[family.asString()] : undefined;
      if (at !== undefined && at < obj.size() && isDeviceCmyk(obj.get(at))) {
        obj.set(at, chainSpace());
        changed++;
      }
      for (const value of obj.asArray()) visit(value, depth + 1);
    }
  };
  for (const [, obj] of context.enumerateIndirectObjects()) visit(obj, 0);

  // 2. Content: the pages' (joined, as the fix joins them), Form XObjects' and tiling patterns'.
  for (const page of pages) {
    const contents = resolve(context, page.node.get(PDFName.of('Contents')));
    const streams = (contents instanceof PDFArray ? items(context, contents) : [contents]).filter((s): s is PDFRawStream => s instanceof PDFRawStream);
    const parts = streams.map(decode);
    if (!streams.length || parts.some((p) => p === undefined)) continue;
    const out = rewriteContent(joinContentStreams(parts as Uint8Array[]));
    if (!out) continue;
    changed += out.changed;
    page.node.set(PDFName.of('Contents'), context.register(context.flateStream(out.bytes)));
    let resources = dictOf(resolve(context, page.node.get(PDFName.of('Resources'))));
    if (!resources) {
      resources = context.obj({});
      page.node.set(PDFName.of('Resources'), resources);
    }
    resourceDicts.add(resources);
  }
  for (const [ref, obj] of context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream)) continue;
    const isForm = getName(context, obj.dict, 'Subtype') === 'Form';
    const isTiling = resolve(context, obj.dict.get(PDFName.of('PatternType')))?.toString() === '1';
    if (!isForm && !isTiling) continue;
    const bytes = decode(obj);
    const out = bytes && rewriteContent(bytes);
    if (!out) continue;
    changed += out.changed;
    const fresh = context.flateStream(out.bytes, {});
    for (const [k, v] of obj.dict.entries()) if (!['Filter', 'Length', 'DecodeParms'].includes(k.decodeText())) fresh.dict.set(k, v);
    context.assign(ref, fresh);
  }
  if (!changed) return null;

  // 3. The chain's space named in every resource dictionary a rewritten stream may draw with.
  const name = PDFName.of(CHAIN_CMYK_NAME);
  for (const resources of resourceDicts) {
    let spaces = dictOf(resolve(context, resources.get(PDFName.of('ColorSpace'))));
    if (!spaces) {
      spaces = context.obj({});
      resources.set(PDFName.of('ColorSpace'), spaces);
    }
    spaces.set(name, chainSpace());
  }
  return doc.save({ useObjectStreams: false });
}

/** Where an array colour space names the space under it: Indexed's base, Separation's and DeviceN's alternate, an uncoloured pattern's. */
const BASE_AT: Readonly<Record<string, number>> = { '/Indexed': 1, '/I': 1, '/Pattern': 1, '/Separation': 2, '/DeviceN': 2 };

/** An ICCBased colour space (an array `[/ICCBased stream]`) whose profile's data colour space is Lab. */
function isIccLabIn(context: PDFContext, budget: DecodeBudget) {
  return (obj: PDFArray): boolean => {
    const family = obj.size() === 2 ? obj.get(0) : undefined;
    if (!(family instanceof PDFName) || family.asString() !== '/ICCBased') return false;
    const stream = resolve(context, obj.get(1));
    if (!(stream instanceof PDFRawStream)) return false;
    try {
      const header = decodeStream(context, stream, { maxBytes: 1 << 20, prefix: 20, budget, what: 'an ICC profile header' });
      return header.length >= 20 && String.fromCharCode(...header.subarray(16, 20)) === 'Lab ';
    } catch {
      return false;
    }
  };
}

/** A colour space that is DeviceCMYK by name. */
function isDeviceCmyk(obj: PDFObject | undefined): boolean {
  return obj instanceof PDFName && (obj.asString() === '/DeviceCMYK' || obj.asString() === '/CMYK');
}

interface Frame {
  edits: { start: number; end: number; text: string }[];
}

/** `k`/`K` become the chain's space and the same values; `/DeviceCMYK cs|CS` the chain's space. Everything else is kept byte for byte. */
const CHAIN_OPS = operatorTable<Frame>(
  ...colourOperators<Frame>({
    device(f, paint, family, args, start, end) {
      const nums = args.filter(isNum);
      if (family !== 'DeviceCMYK' || nums.length !== 4 || args.length !== 4) return;
      const values = nums.map((n) => String(Number(n.toFixed(6)))).join(' ');
      f.edits.push({ start, end, text: paint === 'fill' ? `/${CHAIN_CMYK_NAME} cs ${values} sc` : `/${CHAIN_CMYK_NAME} CS ${values} SC` });
    },
    space(f, paint, args, start, end) {
      const n = args[args.length - 1];
      if (args.length !== 1 || !isName(n) || n.name !== 'DeviceCMYK') return;
      f.edits.push({ start, end, text: `/${CHAIN_CMYK_NAME} ${paint === 'fill' ? 'cs' : 'CS'}` });
    },
    colour() {
      // values in the space in force: the space itself was rewritten
    },
  }),
);

/** The stream with its DeviceCMYK operators rewritten; null when it has none, or cannot be read. */
function rewriteContent(bytes: Uint8Array): { bytes: Uint8Array; changed: number } | null {
  const frame: Frame = { edits: [] };
  try {
    walkContent(bytes, frame, CHAIN_OPS);
  } catch {
    return null; // content the lexer refuses is drawn as it is
  }
  if (!frame.edits.length) return null;
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const e of frame.edits) {
    // A space after each edit: the operator it replaced may have been followed directly by a delimiter.
    parts.push(bytes.subarray(at, e.start), enc.encode(`${e.text} `));
    at = e.end;
  }
  parts.push(bytes.subarray(at));
  return { bytes: concatBytes(parts), changed: frame.edits.length };
}
