/**
 * The colour space of a JPEG 2000 image, read from its header without decoding it. A PDF image with
 * /JPXDecode and no /ColorSpace takes its space from the data (ISO 32000-2 §8.9.5.2 / Table 87): the
 * JP2 header's colour specification box (ISO 15444-1 Annex I.5.3.3: an enumerated space or an ICC
 * profile), else the component count of the image header box or of the codestream's SIZ marker.
 */
import type { ColourSpaceFacts } from './facts.js';

const BY_COMPONENTS: Record<number, ColourSpaceFacts['model']> = { 1: 'gray', 2: 'gray', 3: 'rgb', 4: 'cmyk' };
/** Enumerated colour spaces of the colr box (ISO 15444-1 Table I.10, 15444-2 Table M.25). */
const ENUMERATED: Record<number, { model: ColourSpaceFacts['model']; name: string }> = {
  12: { model: 'cmyk', name: 'CMYK' },
  14: { model: 'lab', name: 'CIELab' },
  16: { model: 'rgb', name: 'sRGB' },
  17: { model: 'gray', name: 'greyscale' },
  18: { model: 'rgb', name: 'sYCC' },
  20: { model: 'rgb', name: 'e-sRGB' },
  21: { model: 'rgb', name: 'ROMM-RGB' },
};
const ICC_MODELS: Record<string, ColourSpaceFacts['model']> = { 'RGB ': 'rgb', GRAY: 'gray', CMYK: 'cmyk', 'Lab ': 'lab' };
const FAMILY = { gray: 'DeviceGray', rgb: 'DeviceRGB', cmyk: 'DeviceCMYK', lab: 'Lab' } as const;
const COMPONENTS = { gray: 1, rgb: 3, cmyk: 4, lab: 3 } as const;

/**
 * The colour space a JPEG 2000 stream (a JP2 file or a bare codestream) declares, or undefined when
 * its header cannot be read. Reported as the device family of the same model, as poppler does.
 * @example
 * jpxColourSpace(jp2Bytes)?.model; // 'rgb'
 */
export function jpxColourSpace(data: Uint8Array): ColourSpaceFacts | undefined {
  const found = data[0] === 0xff && data[1] === 0x4f ? codestreamComponents(data, 0) : jp2Header(data);
  if (!found || found.model === 'unknown' || found.model === 'spot') return undefined;
  const model = found.model;
  return { family: FAMILY[model], model, components: COMPONENTS[model], label: `JPEG 2000 ${found.name}` };
}

interface Found {
  model: ColourSpaceFacts['model'];
  name: string;
}

function codestreamComponents(data: Uint8Array, at: number): Found | undefined {
  // SOC (FF4F), then SIZ (FF51): Lsiz, Rsiz, 8 × 4-byte sizes, then Csiz.
  if (data[at] !== 0xff || data[at + 1] !== 0x4f || data[at + 2] !== 0xff || data[at + 3] !== 0x51) return undefined;
  if (at + 42 > data.length) return undefined;
  const n = (data[at + 40]! << 8) | data[at + 41]!;
  const model = BY_COMPONENTS[n];
  return model ? { model, name: `${n}-component (${model})` } : undefined;
}

function jp2Header(data: Uint8Array): Found | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let components: number | undefined;
  let colour: Found | undefined;
  const walk = (from: number, to: number, depth: number) => {
    let at = from;
    for (let boxes = 0; at + 8 <= to && boxes < 64; boxes++) {
      let length = view.getUint32(at);
      const type = String.fromCharCode(...data.subarray(at + 4, at + 8));
      let body = at + 8;
      if (length === 1) {
        if (at + 16 > to) return;
        length = Number(view.getBigUint64(at + 8));
        body = at + 16;
      } else if (length === 0) length = to - at;
      const end = Math.min(to, at + length);
      if (length < body - at) return;
      if (type === 'jp2h' && depth === 0) walk(body, end, 1);
      else if (type === 'ihdr' && body + 10 <= end) components = view.getUint16(body + 8);
      else if (type === 'colr' && !colour && body + 3 <= end) colour = colrBox(data, body, end);
      else if (type === 'jp2c' && components === undefined) {
        const cs = codestreamComponents(data, body);
        if (cs) return void (colour ??= cs);
      }
      at = end;
    }
  };
  walk(0, data.length, 0);
  if (colour) return colour;
  const model = components === undefined ? undefined : BY_COMPONENTS[components];
  return model ? { model, name: `${components}-component (${model})` } : undefined;
}

function colrBox(data: Uint8Array, body: number, end: number): Found | undefined {
  const method = data[body]!;
  if (method === 1 && body + 7 <= end) {
    const e = ((data[body + 3]! << 24) | (data[body + 4]! << 16) | (data[body + 5]! << 8) | data[body + 6]!) >>> 0;
    return ENUMERATED[e];
  }
  if ((method === 2 || method === 3) && body + 3 + 20 <= end) {
    const signature = String.fromCharCode(...data.subarray(body + 3 + 16, body + 3 + 20));
    const model = ICC_MODELS[signature];
    return model ? { model, name: `ICC ${signature.trim()}` } : undefined;
  }
  return undefined;
}
