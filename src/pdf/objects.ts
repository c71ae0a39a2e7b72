/** Small, safe accessors over pdf-lib's object model (resolve references, read numbers and names). */
import { PDFArray, PDFBool, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream, PDFString, type PDFContext, type PDFObject } from './pdf-lib.js';

export { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream };
export type { PDFContext, PDFObject };

const names = new Map<string, PDFName>();
/** A cached PDFName. */
export function N(name: string): PDFName {
  let n = names.get(name);
  if (!n) names.set(name, (n = PDFName.of(name)));
  return n;
}

/** Follows references (bounded, so a ref that points at itself cannot loop). */
export function resolve(context: PDFContext, obj: PDFObject | undefined): PDFObject | undefined {
  let current = obj;
  for (let i = 0; i < 32 && current instanceof PDFRef; i++) current = context.lookup(current);
  return current instanceof PDFRef ? undefined : current;
}

export function dictOf(obj: PDFObject | undefined): PDFDict | undefined {
  if (obj instanceof PDFDict) return obj;
  if (obj instanceof PDFStream) return obj.dict;
  return undefined;
}

export function get(context: PDFContext, dict: PDFDict | undefined, key: string): PDFObject | undefined {
  return dict ? resolve(context, dict.get(N(key))) : undefined;
}

export function getDict(context: PDFContext, dict: PDFDict | undefined, key: string): PDFDict | undefined {
  return dictOf(get(context, dict, key));
}

export function getArray(context: PDFContext, dict: PDFDict | undefined, key: string): PDFArray | undefined {
  const v = get(context, dict, key);
  return v instanceof PDFArray ? v : undefined;
}

export function numberOf(obj: PDFObject | undefined): number | undefined {
  return obj instanceof PDFNumber && Number.isFinite(obj.asNumber()) ? obj.asNumber() : undefined;
}

export function getNumber(context: PDFContext, dict: PDFDict | undefined, key: string): number | undefined {
  return numberOf(get(context, dict, key));
}

export function nameOf(obj: PDFObject | undefined): string | undefined {
  return obj instanceof PDFName ? obj.decodeText() : undefined;
}

export function getName(context: PDFContext, dict: PDFDict | undefined, key: string): string | undefined {
  return nameOf(get(context, dict, key));
}

export function getBool(context: PDFContext, dict: PDFDict | undefined, key: string): boolean | undefined {
  const v = get(context, dict, key);
  return v instanceof PDFBool ? v.asBoolean() : undefined;
}

export function bytesOf(obj: PDFObject | undefined): Uint8Array | undefined {
  if (obj instanceof PDFString || obj instanceof PDFHexString) return obj.asBytes();
  return undefined;
}

/** Array elements, each resolved. */
export function items(context: PDFContext, arr: PDFArray | undefined): (PDFObject | undefined)[] {
  if (!arr) return [];
  const out: (PDFObject | undefined)[] = [];
  for (let i = 0; i < arr.size(); i++) out.push(resolve(context, arr.get(i)));
  return out;
}

/** A rectangle [x0 y0 x1 y1] normalised so that x0 ≤ x1 and y0 ≤ y1, or undefined when malformed. */
export function rectOf(context: PDFContext, obj: PDFObject | undefined): [number, number, number, number] | undefined {
  const r = resolve(context, obj);
  if (!(r instanceof PDFArray) || r.size() !== 4) return undefined;
  const v = items(context, r).map(numberOf);
  if (v.some((x) => x === undefined)) return undefined;
  const [a, b, c, d] = v as number[];
  return [Math.min(a!, c!), Math.min(b!, d!), Math.max(a!, c!), Math.max(b!, d!)];
}

/** "12 0 R" */
export function refLabel(ref: PDFRef | undefined): string | null {
  return ref ? `${ref.objectNumber} ${ref.generationNumber} R` : null;
}
