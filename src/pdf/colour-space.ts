/**
 * Resolves a PDF colour space object to what it is (ISO 32000-2 §8.6): family, component count,
 * and the colour model its values are in. ICCBased spaces are classified by the data colour space
 * in the profile header (bytes 16–19) when the stream can be read, else by /N.
 */
import type { PDFContext, PDFDict, PDFObject } from 'pdf-lib';
import type { ColourSpaceFacts } from './facts.js';
import { PDFArray, PDFName, PDFRawStream, dictOf, getDict, getNumber, items, nameOf, resolve } from './objects.js';
import { own } from '../util/own.js';

const DEVICE: Record<string, ColourSpaceFacts> = {
  DeviceGray: { family: 'DeviceGray', model: 'gray', components: 1, label: 'DeviceGray' },
  DeviceRGB: { family: 'DeviceRGB', model: 'rgb', components: 3, label: 'DeviceRGB' },
  DeviceCMYK: { family: 'DeviceCMYK', model: 'cmyk', components: 4, label: 'DeviceCMYK' },
  Pattern: { family: 'Pattern', model: 'unknown', components: 0, label: 'Pattern' },
};
/** Abbreviations allowed in inline images. */
const SHORT: Record<string, string> = { G: 'DeviceGray', RGB: 'DeviceRGB', CMYK: 'DeviceCMYK', I: 'Indexed' };

export const unknownColourSpace = (why: string): ColourSpaceFacts => ({
  family: 'Unknown',
  model: 'unknown',
  components: 0,
  label: `unknown (${why})`,
});

const ICC_MODELS: Record<string, ColourSpaceFacts['model']> = {
  'RGB ': 'rgb',
  GRAY: 'gray',
  CMYK: 'cmyk',
  'Lab ': 'lab',
};
const MODEL_BY_N: Record<number, ColourSpaceFacts['model']> = { 1: 'gray', 3: 'rgb', 4: 'cmyk' };
const MODEL_NAME: Record<ColourSpaceFacts['model'], string> = {
  rgb: 'RGB',
  gray: 'Gray',
  cmyk: 'CMYK',
  lab: 'Lab',
  spot: 'spot',
  unknown: 'unknown',
};

export class ColourSpaceResolver {
  private readonly cache = new Map<PDFObject, ColourSpaceFacts>();

  constructor(
    private readonly context: PDFContext,
    /** Decodes a stream's data (decrypting it when needed), within the inspection limits. */
    private readonly readStream: (stream: PDFRawStream) => Uint8Array,
  ) {}

  /**
   * Describes a colour space given by name (looked up in the resources' /ColorSpace) or by value.
   * `inline` allows the abbreviations of inline images.
   */
  describe(value: PDFObject | string | undefined, resources: PDFDict | undefined, inline = false, depth = 0): ColourSpaceFacts {
    if (depth > 8) return unknownColourSpace('nested too deeply');
    if (typeof value === 'string') {
      const name = inline ? (own(SHORT, value) ?? value) : value;
      const device = own(DEVICE, name);
      if (device) {
        // A default colour space (DefaultRGB…) in the resources replaces the device space; it is
        // still the same colour model, so the device description stands.
        return device;
      }
      const named = resolve(this.context, getDict(this.context, resources, 'ColorSpace')?.get(PDFName.of(name)));
      if (!named) return unknownColourSpace(`/${name} is not in the page resources`);
      return this.describe(named, resources, false, depth + 1);
    }
    const obj = resolve(this.context, value);
    if (!obj) return unknownColourSpace('missing');
    const hit = this.cache.get(obj);
    if (hit) return hit;
    const facts = this.describeObject(obj, resources, depth);
    this.cache.set(obj, facts);
    return facts;
  }

  private describeObject(obj: PDFObject, resources: PDFDict | undefined, depth: number): ColourSpaceFacts {
    const ctx = this.context;
    const name = nameOf(obj);
    if (name) return this.describe(name, resources, false, depth + 1);
    if (!(obj instanceof PDFArray) || obj.size() === 0) return unknownColourSpace('malformed');
    const parts = items(ctx, obj);
    const family = nameOf(parts[0]);
    switch (family) {
      case 'DeviceGray':
      case 'DeviceRGB':
      case 'DeviceCMYK':
      case 'Pattern': {
        if (family === 'Pattern' && parts[1]) {
          const under = this.describe(parts[1], resources, false, depth + 1);
          return { ...DEVICE.Pattern!, base: under, label: `Pattern over ${under.label}` };
        }
        return DEVICE[family]!;
      }
      case 'CalGray':
        return { family: 'CalGray', model: 'gray', components: 1, label: 'CalGray' };
      case 'CalRGB':
        return { family: 'CalRGB', model: 'rgb', components: 3, label: 'CalRGB' };
      case 'Lab':
        return { family: 'Lab', model: 'lab', components: 3, label: 'Lab' };
      case 'ICCBased':
        return this.iccBased(parts[1], resources, depth);
      case 'Indexed':
      case 'I': {
        const base = this.describe(parts[1], resources, false, depth + 1);
        return { family: 'Indexed', model: base.model, components: 1, label: `Indexed over ${base.label}`, base };
      }
      case 'Separation': {
        const colorant = nameOf(parts[1]) ?? '?';
        const alternate = this.describe(parts[2], resources, false, depth + 1);
        return {
          family: 'Separation',
          model: 'spot',
          components: 1,
          label: `Separation “${colorant}” (alternate ${alternate.label})`,
          base: alternate,
          colorants: [colorant],
        };
      }
      case 'DeviceN': {
        const colorants = parts[1] instanceof PDFArray ? items(ctx, parts[1]).map((c) => nameOf(c) ?? '?') : [];
        const alternate = this.describe(parts[2], resources, false, depth + 1);
        return {
          family: 'DeviceN',
          model: 'spot',
          components: colorants.length,
          label: `DeviceN ${colorants.map((c) => `“${c}”`).join(' ')} (alternate ${alternate.label})`,
          base: alternate,
          colorants,
        };
      }
      default:
        return unknownColourSpace(`/${family ?? '?'}`);
    }
  }

  private iccBased(streamObj: PDFObject | undefined, resources: PDFDict | undefined, depth: number): ColourSpaceFacts {
    const ctx = this.context;
    const stream = resolve(ctx, streamObj);
    const dict = dictOf(stream);
    const n = getNumber(ctx, dict, 'N') ?? 0;
    let model: ColourSpaceFacts['model'] = MODEL_BY_N[n] ?? 'unknown';
    let fromHeader = false;
    if (stream instanceof PDFRawStream) {
      try {
        const data = this.readStream(stream);
        const signature = String.fromCharCode(...data.subarray(16, 20));
        const fromSignature = own(ICC_MODELS, signature);
        if (fromSignature) {
          model = fromSignature;
          fromHeader = true;
        }
      } catch {
        // Undecodable profile: /N decides.
      }
    }
    const alternateObj = dict ? resolve(ctx, dict.get(PDFName.of('Alternate'))) : undefined;
    const base = alternateObj ? this.describe(alternateObj, resources, false, depth + 1) : undefined;
    return {
      family: 'ICCBased',
      model,
      components: n,
      label: `ICCBased ${MODEL_NAME[model]}${fromHeader ? '' : ` (N ${n})`}`,
      ...(base ? { base } : {}),
    };
  }
}
