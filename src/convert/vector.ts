/**
 * Rewrites vector colour in content streams as sRGB: `k`/`K` (DeviceCMYK), and `cs`/`CS` + `sc`/`scn`
 * in DeviceCMYK, ICC-based CMYK, or Separation/DeviceN whose tint transform is a Type 2 function
 * over a CMYK, gray or RGB alternate. Only the bytes of those operators change; everything else —
 * strings, inline images, unknown operators — is kept byte for byte. Two passes: collect every
 * colour, convert them all at once through lcms (the same engine as images), then rewrite.
 */
import { createHash } from 'node:crypto';
import { type PDFArray, PDFName, PDFRawStream, type PDFContext, type PDFDict, type PDFObject } from '../pdf/pdf-lib.js';

import { isName, isNum } from '../pdf/lexer.js';
import { StateStack } from '../pdf/content/state.js';
import { colourOperators, operatorTable, walkContent, type OperatorTable, type Paint } from '../pdf/content/walk.js';
import { ColourSpaceResolver } from '../pdf/colour-space.js';
import { parseFunction } from '../pdf/functions.js';
import { getDict, items, resolve } from '../pdf/objects.js';
import { BudgetExceededError, type DecodeBudget } from '../pdf/decode-budget.js';
import { decodeStream } from '../pdf/streams.js';
import { cmykColoursToRgb } from '../raster/colour.js';
import { concatBytes } from '../util/array.js';

/** How values in one colour space become CMYK / gray / RGB before lcms. */
interface Converter {
  /** The source model of the colours it produces. */
  model: 'cmyk' | 'gray' | 'rgb';
  /** Values as written → values in `model`; null when they cannot be computed. */
  toModel(values: number[]): number[] | null;
  /** The initial colour of the space (what painting uses before any sc/scn). */
  initial: number[];
  icc?: Uint8Array | undefined;
}

export class VectorColourRewriter {
  private readonly pending = new Map<string, { model: string; values: number[]; icc?: Uint8Array }>();
  private readonly rgb = new Map<string, [number, number, number]>();
  private readonly colourSpaces: ColourSpaceResolver;
  private readonly deviceCmyk: Converter;
  readonly left = new Set<string>();

  /** @param budget the file's decode budget: every stream decoded draws on it */
  constructor(
    private readonly context: PDFContext,
    private readonly budget?: DecodeBudget,
    /** The source profile of DeviceCMYK colours (the file's CMYK output intent), else the default chain's. */
    deviceCmykIcc?: Uint8Array,
  ) {
    this.deviceCmyk = deviceCmykIcc ? { ...DEVICE_CMYK, icc: deviceCmykIcc } : DEVICE_CMYK;
    this.colourSpaces = new ColourSpaceResolver(context, (s) => decodeStream(context, s, { maxBytes: 64 * 1024 * 1024, budget }));
  }

  private converterFor(name: string, resources: PDFDict | undefined): Converter | null | 'keep' {
    if (name === 'DeviceCMYK' || name === 'CMYK') return this.deviceCmyk;
    if (name === 'DeviceRGB' || name === 'DeviceGray' || name === 'Pattern') return 'keep';
    const obj = resolve(this.context, getDict(this.context, resources, 'ColorSpace')?.get(PDFName.of(name)));
    if (!obj) return 'keep';
    return this.converterForObject(obj, resources);
  }

  private converterForObject(obj: PDFObject, resources: PDFDict | undefined): Converter | null | 'keep' {
    const cs = this.colourSpaces.describe(obj, resources);
    if (cs.model === 'rgb' || cs.model === 'gray' || cs.family === 'Pattern') return 'keep';
    if (cs.family === 'DeviceCMYK') return this.deviceCmyk;
    if (cs.family === 'ICCBased' && cs.model === 'cmyk') {
      const arr = items(this.context, obj as PDFArray);
      const icc = arr[1] instanceof PDFRawStream ? safeDecode(this.context, arr[1], this.budget) : undefined;
      return { ...DEVICE_CMYK, icc };
    }
    if (cs.family === 'Separation' || cs.family === 'DeviceN') {
      const arr = items(this.context, obj as PDFArray);
      const alternate = arr[2];
      const why: string[] = [];
      const fn = parseFunction(this.context, arr[3], why);
      const alt = alternate ? this.converterForObject(alternate, resources) : null;
      const altModel = alt === 'keep' ? this.colourSpaces.describe(alternate, resources).model : alt?.model;
      if (!fn || !altModel || (altModel !== 'cmyk' && altModel !== 'gray' && altModel !== 'rgb')) {
        this.left.add(`${cs.label}: ${fn ? 'its alternate space is not CMYK, gray or RGB' : `its tint transform cannot be evaluated (${why.join('; ') || 'unknown'})`}`);
        return null;
      }
      const inputs = cs.family === 'Separation' ? 1 : (cs.colorants?.length ?? 1);
      const model = altModel as Converter['model'];
      const icc = alt && alt !== 'keep' ? alt.icc : undefined;
      const toModel = (v: number[]) => {
        try {
          return fn(v);
        } catch {
          return null;
        }
      };
      return { model, toModel, initial: Array(inputs).fill(1), icc };
    }
    this.left.add(`${cs.label}: not converted`);
    return null;
  }

  private key(model: string, values: number[], icc?: Uint8Array) {
    return `${model}|${values.map((v) => v.toFixed(4)).join(',')}|${iccId(icc)}`;
  }

  private want(conv: Converter, values: number[]): string | null {
    const v = conv.toModel(values);
    if (!v) return null;
    const key = this.key(conv.model, v, conv.icc);
    if (!this.pending.has(key) && !this.rgb.has(key)) {
      // Real artwork has hundreds of distinct colours; a file with millions is refused, not held in memory.
      if (this.pending.size + this.rgb.size >= MAX_DISTINCT_COLOURS) {
        this.left.add(`more than ${MAX_DISTINCT_COLOURS.toLocaleString('en')} distinct vector colours: the rest are not converted`);
        return null;
      }
      this.pending.set(key, { model: conv.model, values: v, icc: conv.icc });
    }
    return key;
  }

  /** Walks a content stream; in `collect` mode gathers colours, otherwise returns the rewritten bytes. */
  private walk(bytes: Uint8Array, resources: PDFDict | undefined, mode: 'collect' | 'rewrite'): { bytes: Uint8Array; changed: number } {
    const frame: RewriteFrame = {
      mode,
      state: { fill: null, stroke: null },
      stack: new StateStack(MAX_SAVED_STATES, undefined, true),
      edits: [],
      want: (conv, values) => this.want(conv, values),
      converterFor: (name) => this.converterFor(name, resources),
      rgbText: (key, op) => {
        const c = key ? this.rgb.get(key) : undefined;
        return c ? `${c.map((v) => round(v)).join(' ')} ${op}` : null;
      },
    };
    walkContent(bytes, frame, REWRITE_OPS);
    const edits = frame.edits;
    if (mode === 'collect' || edits.length === 0) return { bytes, changed: 0 };
    const enc = new TextEncoder();
    const parts: Uint8Array[] = [];
    let at = 0;
    for (const e of edits) {
      parts.push(bytes.subarray(at, e.start), enc.encode(e.text));
      at = e.end;
    }
    parts.push(bytes.subarray(at));
    return { bytes: concatBytes(parts), changed: edits.length };
  }

  collect(bytes: Uint8Array, resources: PDFDict | undefined) {
    this.walk(bytes, resources, 'collect');
  }

  /** Converts every collected colour through lcms. */
  async convertCollected(): Promise<void> {
    const groups = new Map<string, { keys: string[]; values: number[][]; model: string; icc?: Uint8Array }>();
    for (const [key, p] of this.pending) {
      const group = `${p.model}|${iccId(p.icc)}`;
      const g = groups.get(group) ?? { keys: [], values: [], model: p.model, icc: p.icc };
      g.keys.push(key);
      g.values.push(p.values);
      groups.set(group, g);
    }
    for (const g of groups.values()) {
      const rgb = g.model === 'cmyk' ? await cmykColoursToRgb(g.values, g.icc) : g.values.map((v) => (g.model === 'gray' ? [v[0]!, v[0]!, v[0]!] : [v[0]!, v[1]!, v[2]!]) as [number, number, number]);
      g.keys.forEach((k, i) => this.rgb.set(k, rgb[i]!));
    }
    this.pending.clear();
  }

  rewrite(bytes: Uint8Array, resources: PDFDict | undefined): { bytes: Uint8Array; changed: number } {
    return this.walk(bytes, resources, 'rewrite');
  }
}

/** The colour spaces in force (null: not converted) and what one walk of a stream builds. */
interface RewriteFrame {
  mode: 'collect' | 'rewrite';
  state: { fill: Converter | null; stroke: Converter | null };
  // The colour spaces in force, saved by q and restored by Q (ISO 32000-2 §8.4.2): after `q … rg Q`
  // the fill is the CMYK space again, and its `sc` must still be converted.
  stack: StateStack<RewriteFrame['state']>;
  edits: { start: number; end: number; text: string }[];
  want(conv: Converter, values: number[]): string | null;
  converterFor(name: string): Converter | null | 'keep';
  rgbText(key: string | null, op: string): string | null;
}

const DEVICE_CMYK: Converter = { model: 'cmyk', toModel: (v) => v, initial: [0, 0, 0, 1] };

/** Sets the fill's or stroke's converter, and (rewriting) replaces the operator by `rg`/`RG` when its colour converted. */
function convert(f: RewriteFrame, paint: Paint, conv: Converter, values: number[], start: number, end: number) {
  const key = f.want(conv, values);
  if (f.mode === 'rewrite') {
    const t = f.rgbText(key, paint === 'fill' ? 'rg' : 'RG');
    if (t) f.edits.push({ start, end, text: t });
  }
}

/** The rewriter's operators: the state stack and the colour operators; the rest is kept as it is. */
const REWRITE_OPS: OperatorTable<RewriteFrame> = operatorTable<RewriteFrame>(
  [['q'], (f) => f.stack.save({ ...f.state })],
  [
    ['Q'],
    (f) => {
      f.state = f.stack.restore() ?? f.state;
    },
  ],
  ...colourOperators<RewriteFrame>({
    device(f, paint, family, args, start, end) {
      if (family === 'DeviceCMYK') {
        const nums = args.filter(isNum);
        // DeviceCMYK as the rewriter means it: through the file's CMYK output intent where it has one.
        const conv = f.converterFor('DeviceCMYK');
        if (nums.length !== 4 || !conv || conv === 'keep') return;
        convert(f, paint, conv, nums, start, end);
      }
      f.state[paint] = null;
    },
    space(f, paint, args, start, end) {
      const n = args[args.length - 1];
      const conv = isName(n) ? f.converterFor(n.name) : 'keep';
      const active = conv === 'keep' || conv === null ? null : conv;
      f.state[paint] = active;
      if (active) convert(f, paint, active, active.initial, start, end);
    },
    colour(f, paint, args, start, end) {
      const conv = f.state[paint];
      const nums = args.filter(isNum);
      if (!conv || nums.length !== args.length) return;
      convert(f, paint, conv, nums, start, end);
    },
  }),
);

/** An ICC profile's stream decoded; an unreadable one is none (plain DeviceCMYK), a file over its decode budget is refused as the image path refuses it. */
function safeDecode(context: PDFContext, s: PDFRawStream, budget: DecodeBudget | undefined): Uint8Array | undefined {
  try {
    return decodeStream(context, s, { maxBytes: 16 * 1024 * 1024, budget });
  } catch (error) {
    if (error instanceof BudgetExceededError) throw error;
    return undefined;
  }
}

const iccIds = new WeakMap<Uint8Array, string>();

/** Which ICC profile converts a colour: its bytes' hash (two profiles of one size are not one), '-' for none. */
function iccId(icc: Uint8Array | undefined): string {
  if (!icc) return '-';
  let id = iccIds.get(icc);
  if (id === undefined) {
    id = createHash('sha256').update(icc).digest('hex');
    iccIds.set(icc, id);
  }
  return id;
}

const round = (v: number) => String(Math.round(v * 10000) / 10000);

/** Distinct colours one file's vector content may have converted. */
const MAX_DISTINCT_COLOURS = 262_144;

/** Deeper q nesting than any renderer keeps (pdf.js and MuPDF cap theirs lower): the rest are not saved. */
const MAX_SAVED_STATES = 4096;
