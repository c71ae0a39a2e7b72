/**
 * PDF functions (ISO 32000-2 §7.10), evaluated without eval: Type 0 (sampled, up to 8 inputs,
 * multilinear interpolation; a dimension of /Size 1 is constant), Type 2 (exponential), Type 3 (stitching) and Type 4 (the PostScript calculator
 * subset, run by a small stack machine with a step limit). Used to turn spot-colour tints into
 * their alternate colour space.
 */
import { PDFArray, PDFRawStream, type PDFContext, type PDFObject } from './pdf-lib.js';
import { dictOf, get, getNumber, items, numberOf, resolve } from './objects.js';
import { decodeStream } from './streams.js';
import { pushAll } from '../util/array.js';

export type PdfFunction = (inputs: readonly number[]) => number[];

/** Most inputs of a sampled function (its corners grow as 2^inputs): DeviceN spaces of up to 8 colorants. */
const MAX_SAMPLED_INPUTS = 8;

const clip = (v: number, lo = -Infinity, hi = Infinity) => Math.min(hi, Math.max(lo, v));

function nums(context: PDFContext, obj: PDFObject | undefined): number[] | null {
  const arr = resolve(context, obj);
  if (!(arr instanceof PDFArray)) return null;
  const v = items(context, arr).map(numberOf);
  return v.every((x) => x !== undefined) ? (v as number[]) : null;
}

/** Builds an evaluator, or returns null for a function it cannot evaluate (reason in `why`). */
export function parseFunction(context: PDFContext, obj: PDFObject | undefined, why: string[] = [], depth = 0): PdfFunction | null {
  const fnObj = resolve(context, obj);
  if (fnObj instanceof PDFArray) {
    // An array of 1-output functions: one per output.
    const parts = items(context, fnObj).map((f) => parseFunction(context, f, why, depth + 1));
    if (parts.some((p) => !p)) return null;
    return (x) => parts.flatMap((p) => p!(x));
  }
  const dict = dictOf(fnObj);
  if (!dict || depth > 8) {
    why.push('the function is missing or nested too deeply');
    return null;
  }
  const type = getNumber(context, dict, 'FunctionType');
  const domain = nums(context, get(context, dict, 'Domain')) ?? [0, 1];
  const range = nums(context, get(context, dict, 'Range'));
  const clipIn = (x: readonly number[]) => x.map((v, i) => clip(v, domain[2 * i], domain[2 * i + 1]));
  const clipOut = (y: number[]) => (range ? y.map((v, i) => clip(v, range[2 * i], range[2 * i + 1])) : y);
  switch (type) {
    case 2: {
      const c0 = nums(context, get(context, dict, 'C0')) ?? [0];
      const c1 = nums(context, get(context, dict, 'C1')) ?? [1];
      const n = getNumber(context, dict, 'N') ?? 1;
      return (x) => {
        const t = clipIn(x)[0] ?? 0;
        return clipOut(c0.map((a, i) => a + t ** n * ((c1[i] ?? 0) - a)));
      };
    }
    case 3: {
      const fns = get(context, dict, 'Functions');
      const parts = fns instanceof PDFArray ? items(context, fns).map((f) => parseFunction(context, f, why, depth + 1)) : [];
      const bounds = nums(context, get(context, dict, 'Bounds')) ?? [];
      const encode = nums(context, get(context, dict, 'Encode')) ?? [];
      if (!parts.length || parts.some((p) => !p)) return null;
      return (x) => {
        const t = clipIn(x)[0] ?? 0;
        let k = 0;
        while (k < bounds.length && t >= bounds[k]!) k++;
        const lo = k === 0 ? domain[0]! : bounds[k - 1]!;
        const hi = k === bounds.length ? domain[1]! : bounds[k]!;
        const e0 = encode[2 * k] ?? 0;
        const e1 = encode[2 * k + 1] ?? 1;
        const u = hi === lo ? e0 : e0 + ((t - lo) * (e1 - e0)) / (hi - lo);
        return clipOut(parts[k]!([u]));
      };
    }
    case 0: {
      const inputs = domain.length / 2;
      if (!(fnObj instanceof PDFRawStream) || !range || !Number.isInteger(inputs) || inputs < 1 || inputs > MAX_SAMPLED_INPUTS) {
        why.push('a sampled function without a range, or with more inputs than can be sampled');
        return null;
      }
      const sizes = (nums(context, get(context, dict, 'Size')) ?? []).map((v) => Math.trunc(v));
      const bps = getNumber(context, dict, 'BitsPerSample') ?? 8;
      const m = range.length / 2;
      if (sizes.length !== inputs || sizes.some((v) => !(v >= 1)) || ![1, 2, 4, 8, 16, 24, 32].includes(bps)) {
        why.push('a sampled function with a bad /Size or /BitsPerSample');
        return null;
      }
      const encode = nums(context, get(context, dict, 'Encode')) ?? sizes.flatMap((v) => [0, v - 1]);
      const decode = nums(context, get(context, dict, 'Decode')) ?? range;
      let data: Uint8Array;
      try {
        data = decodeStream(context, fnObj, { maxBytes: 16 * 1024 * 1024 });
      } catch {
        why.push('its samples cannot be decoded');
        return null;
      }
      const max = 2 ** bps - 1;
      const sample = (i: number, j: number) => {
        const bit = (i * m + j) * bps;
        if (bps < 8) return ((data[bit >> 3] ?? 0) >> (8 - bps - (bit & 7))) & max;
        let v = 0;
        for (let b = 0; b < bps; b += 8) v = v * 256 + (data[(bit + b) >> 3] ?? 0);
        return v;
      };
      // Sample index strides: the first input varies fastest (§7.10.2).
      const strides = sizes.map((_, d) => sizes.slice(0, d).reduce((a, b) => a * b, 1));
      return (x) => {
        const t = clipIn(x);
        // Per input: the two samples around the encoded position, and the weight of the upper one.
        const lo: number[] = [];
        const frac: number[] = [];
        for (let d = 0; d < inputs; d++) {
          const span = domain[2 * d + 1]! - domain[2 * d]! || 1;
          const e = clip(encode[2 * d]! + (((t[d] ?? 0) - domain[2 * d]!) * (encode[2 * d + 1]! - encode[2 * d]!)) / span, 0, sizes[d]! - 1);
          lo.push(Math.floor(e));
          frac.push(sizes[d]! > 1 ? e - Math.floor(e) : 0);
        }
        const out = new Array<number>(m).fill(0);
        // Multilinear interpolation over the 2^inputs corners (a dimension of size 1 has one).
        for (let corner = 0; corner < 1 << inputs; corner++) {
          let weight = 1;
          let index = 0;
          for (let d = 0; d < inputs && weight > 0; d++) {
            const up = (corner >> d) & 1;
            weight *= up ? frac[d]! : 1 - frac[d]!;
            index += Math.min(sizes[d]! - 1, lo[d]! + up) * strides[d]!;
          }
          if (weight === 0) continue;
          for (let j = 0; j < m; j++) out[j]! += weight * sample(index, j);
        }
        return clipOut(out.map((v, j) => decode[2 * j]! + (v / max) * (decode[2 * j + 1]! - decode[2 * j]!)));
      };
    }
    case 4: {
      if (!(fnObj instanceof PDFRawStream)) return null;
      let program: Proc;
      try {
        program = parseCalculator(Buffer.from(decodeStream(context, fnObj, { maxBytes: 1024 * 1024 })).toString('latin1'));
      } catch (error) {
        why.push(`its PostScript calculator program cannot be read (${(error as Error).message})`);
        return null;
      }
      const outputs = range ? range.length / 2 : 1;
      return (x) => {
        const stack: (number | boolean)[] = [...clipIn(x)];
        runCalculator(program, stack, { steps: 0 });
        const out = stack.slice(-outputs).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
        return clipOut(out);
      };
    }
    default:
      why.push(`function type ${type} is not supported`);
      return null;
  }
}

type Proc = (string | number | Proc)[];

function parseCalculator(text: string): Proc {
  const tokens = text.match(/[{}]|[^\s{}]+/g) ?? [];
  let i = 0;
  const parseProc = (): Proc => {
    const out: Proc = [];
    while (i < tokens.length) {
      const t = tokens[i++]!;
      if (t === '{') out.push(parseProc());
      else if (t === '}') return out;
      else if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) out.push(Number(t));
      else out.push(t);
    }
    return out;
  };
  if (tokens[i] === '{') i++;
  return parseProc();
}

const MAX_STEPS = 100_000;

function runCalculator(proc: Proc, s: (number | boolean)[], counter: { steps: number }): void {
  const num = () => {
    const v = s.pop();
    if (typeof v !== 'number') throw new Error('number expected');
    return v;
  };
  for (let k = 0; k < proc.length; k++) {
    if (++counter.steps > MAX_STEPS) throw new Error('program runs too long');
    const t = proc[k]!;
    if (typeof t === 'number') {
      s.push(t);
      continue;
    }
    if (Array.isArray(t)) {
      // A procedure operand of if / ifelse.
      const next = proc[k + 1];
      if (next === 'if') {
        if (s.pop()) runCalculator(t, s, counter);
        k++;
      } else if (Array.isArray(next) && proc[k + 2] === 'ifelse') {
        runCalculator(s.pop() ? t : next, s, counter);
        k += 2;
      } else throw new Error('a procedure outside if/ifelse');
      continue;
    }
    switch (t) {
      case 'add': {
        const b = num();
        s.push(num() + b);
        break;
      }
      case 'sub': {
        const b = num();
        s.push(num() - b);
        break;
      }
      case 'mul': {
        const b = num();
        s.push(num() * b);
        break;
      }
      case 'div': {
        const b = num();
        s.push(num() / (b || 1e-12));
        break;
      }
      case 'idiv': {
        const b = Math.trunc(num());
        s.push(Math.trunc(Math.trunc(num()) / (b || 1)));
        break;
      }
      case 'mod': {
        const b = Math.trunc(num());
        s.push(Math.trunc(num()) % (b || 1));
        break;
      }
      case 'neg':
        s.push(-num());
        break;
      case 'abs':
        s.push(Math.abs(num()));
        break;
      case 'ceiling':
        s.push(Math.ceil(num()));
        break;
      case 'floor':
        s.push(Math.floor(num()));
        break;
      case 'round':
        s.push(Math.round(num()));
        break;
      case 'truncate':
      case 'cvi':
        s.push(Math.trunc(num()));
        break;
      case 'cvr':
        break;
      case 'sqrt':
        s.push(Math.sqrt(num()));
        break;
      case 'sin':
        s.push(Math.sin((num() * Math.PI) / 180));
        break;
      case 'cos':
        s.push(Math.cos((num() * Math.PI) / 180));
        break;
      case 'atan': {
        const b = num();
        const a = num();
        s.push(((Math.atan2(a, b) * 180) / Math.PI + 360) % 360);
        break;
      }
      case 'exp': {
        const b = num();
        s.push(num() ** b);
        break;
      }
      case 'ln':
        s.push(Math.log(num()));
        break;
      case 'log':
        s.push(Math.log10(num()));
        break;
      case 'eq': {
        const b = s.pop();
        s.push(s.pop() === b);
        break;
      }
      case 'ne': {
        const b = s.pop();
        s.push(s.pop() !== b);
        break;
      }
      case 'gt': {
        const b = num();
        s.push(num() > b);
        break;
      }
      case 'ge': {
        const b = num();
        s.push(num() >= b);
        break;
      }
      case 'lt': {
        const b = num();
        s.push(num() < b);
        break;
      }
      case 'le': {
        const b = num();
        s.push(num() <= b);
        break;
      }
      case 'and': {
        const b = s.pop();
        const a = s.pop();
        s.push(typeof a === 'boolean' ? a && !!b : (a as number) & (b as number));
        break;
      }
      case 'or': {
        const b = s.pop();
        const a = s.pop();
        s.push(typeof a === 'boolean' ? a || !!b : (a as number) | (b as number));
        break;
      }
      case 'xor': {
        const b = s.pop();
        const a = s.pop();
        s.push(typeof a === 'boolean' ? a !== !!b : (a as number) ^ (b as number));
        break;
      }
      case 'not': {
        const a = s.pop();
        s.push(typeof a === 'boolean' ? !a : ~(a as number));
        break;
      }
      case 'bitshift': {
        const b = num();
        const a = num();
        s.push(b >= 0 ? a << b : a >> -b);
        break;
      }
      case 'true':
        s.push(true);
        break;
      case 'false':
        s.push(false);
        break;
      case 'pop':
        s.pop();
        break;
      case 'dup':
        s.push(s[s.length - 1]!);
        break;
      case 'exch': {
        const b = s.pop()!;
        const a = s.pop()!;
        s.push(b, a);
        break;
      }
      case 'copy': {
        const n = num();
        pushAll(s, s.slice(s.length - n));
        break;
      }
      case 'index': {
        const n = num();
        s.push(s[s.length - 1 - n]!);
        break;
      }
      case 'roll': {
        const j = num();
        const n = num();
        if (n > 0) {
          const top = s.splice(s.length - n, n);
          const shift = ((j % n) + n) % n;
          pushAll(pushAll(s, top.slice(n - shift)), top.slice(0, n - shift));
        }
        break;
      }
      default:
        throw new Error(`unknown operator ${t}`);
    }
    if (s.length > 1000) throw new Error('stack overflow');
  }
}
