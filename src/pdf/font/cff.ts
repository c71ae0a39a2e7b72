/**
 * CFF programs (FontFile3 /Type1C and /CIDFontType0C, and the CFF table of an OpenType font): the
 * header, the INDEXes a renderer reads before drawing (Name, Top DICT, String, Global Subrs,
 * CharStrings, and for CID-keyed fonts FDArray and FDSelect), each font's Private DICT and local
 * Subrs, then every glyph's Type 2 charstring, run for its structure (operands, hint masks,
 * subroutine calls) without drawing it.
 *
 * As in sfnt.ts, a glyph fails where FreeType's CFF interpreter fails a glyph — more than 48
 * operands, a subroutine number out of range or a call without one, subroutines nested past 16 —
 * and is tolerated where it is tolerant: a charstring that runs off its end (an implied endchar),
 * an unknown operator (ignored), an element whose offsets are odd (read as empty).
 */
import { FontBytes, FontFormatError, GlyphError, GlyphTooCostly, MAX_GLYPH_STEPS, tallyGlyphs, type GlyphTally, type WorkBudget } from './bytes.js';
import { grouped } from '../../util/text.js';

interface Index {
  count: number;
  /** Offset of each element's data and its length. */
  element(i: number): { offset: number; length: number };
  /** First byte after the INDEX. */
  end: number;
}

function readIndex(b: FontBytes, at: number, what: string): Index {
  const count = b.u16(at, `the ${what} INDEX`);
  if (count === 0) return { count, element: () => ({ offset: 0, length: 0 }), end: at + 2 };
  const offSize = b.u8(at + 2, `the ${what} INDEX`);
  if (offSize < 1 || offSize > 4) throw new FontFormatError(`the ${what} INDEX has an offset size of ${offSize}`);
  const offsets = at + 3;
  const dataBase = offsets + (count + 1) * offSize - 1; // offsets count from 1
  const last = b.uN(offsets + count * offSize, offSize, `the ${what} INDEX offsets`);
  if (dataBase + last > b.length) throw new FontFormatError(`the ${what} INDEX runs past the end of the data (the program is cut short)`);
  return {
    count,
    end: dataBase + last,
    element(i: number) {
      const start = b.uN(offsets + i * offSize, offSize);
      const stop = Math.min(b.uN(offsets + (i + 1) * offSize, offSize), last);
      return stop > start && start >= 1 ? { offset: dataBase + start, length: stop - start } : { offset: 0, length: 0 };
    },
  };
}

type Dict = Map<number, number[]>;

/** A DICT's operators (12 x as 1200 + x) and their operands. */
function readDict(b: FontBytes, offset: number, length: number, what: string): Dict {
  const dict: Dict = new Map();
  let operands: number[] = [];
  const end = offset + length;
  let p = offset;
  while (p < end) {
    const v = b.u8(p, what);
    if (v <= 21) {
      let op = v;
      p++;
      if (v === 12) op = 1200 + b.u8(p++, what);
      dict.set(op, operands);
      operands = [];
    } else if (v === 28) {
      operands.push(b.i16(p + 1, what));
      p += 3;
    } else if (v === 29) {
      operands.push(b.u32(p + 1, what) | 0);
      p += 5;
    } else if (v === 30) {
      // A real number in nibbles; its value is never needed here.
      p++;
      for (;;) {
        const n = b.u8(p++, what);
        if ((n & 0x0f) === 0x0f || (n & 0xf0) === 0xf0) break;
      }
      operands.push(0);
    } else if (v >= 32 && v <= 246) {
      operands.push(v - 139);
      p++;
    } else if (v >= 247 && v <= 250) {
      operands.push((v - 247) * 256 + b.u8(p + 1, what) + 108);
      p += 2;
    } else if (v >= 251 && v <= 254) {
      operands.push(-(v - 251) * 256 - b.u8(p + 1, what) - 108);
      p += 2;
    } else {
      throw new FontFormatError(`${what} holds the reserved byte ${v}`);
    }
    if (operands.length > 48) throw new FontFormatError(`${what} has more than 48 operands in a row`);
  }
  return dict;
}

const OP = { charStrings: 17, private: 18, subrs: 19, charstringType: 1206, ros: 1230, fdArray: 1236, fdSelect: 1237 };

interface Subfont {
  localSubrs: Index | null;
}

/** Checks a bare CFF program (or an OpenType CFF table). Throws FontFormatError when it cannot be parsed. */
export function checkCff(data: Uint8Array, budget: WorkBudget): { format: 'CFF'; tally: GlyphTally } {
  const b = new FontBytes(data);
  const major = b.u8(0, 'the CFF header');
  if (major !== 1) throw new FontFormatError(`the CFF major version is ${major}, not 1`);
  const headerSize = b.u8(2, 'the CFF header');
  if (headerSize < 4) throw new FontFormatError(`the CFF header size is ${headerSize}`);
  const names = readIndex(b, headerSize, 'Name');
  const topDicts = readIndex(b, names.end, 'Top DICT');
  if (topDicts.count < 1) throw new FontFormatError('the Top DICT INDEX is empty');
  const strings = readIndex(b, topDicts.end, 'String');
  const globalSubrs = readIndex(b, strings.end, 'Global Subr');
  const topAt = topDicts.element(0);
  const top = readDict(b, topAt.offset, topAt.length, 'the Top DICT');
  const charStringsAt = top.get(OP.charStrings)?.[0];
  if (!charStringsAt) throw new FontFormatError('the Top DICT gives no CharStrings');
  const charStrings = readIndex(b, charStringsAt, 'CharStrings');
  if (charStrings.count === 0) throw new FontFormatError('the CharStrings INDEX is empty');
  const type = top.get(OP.charstringType)?.[0] ?? 2;

  let subfontOf: (glyph: number) => Subfont;
  if (top.has(OP.ros)) {
    const fdArrayAt = top.get(OP.fdArray)?.[0];
    const fdSelectAt = top.get(OP.fdSelect)?.[0];
    if (!fdArrayAt || !fdSelectAt) throw new FontFormatError('the CID-keyed font has no FDArray or FDSelect');
    const fdArray = readIndex(b, fdArrayAt, 'FDArray');
    if (fdArray.count === 0) throw new FontFormatError('the FDArray is empty');
    const subfonts: Subfont[] = [];
    for (let i = 0; i < fdArray.count; i++) {
      const at = fdArray.element(i);
      subfonts.push(privateOf(b, readDict(b, at.offset, at.length, `Font DICT ${i}`)));
    }
    const select = fdSelect(b, fdSelectAt, charStrings.count);
    subfontOf = (glyph) => {
      const fd = select(glyph);
      const sub = subfonts[fd];
      if (!sub) throw new GlyphError(`its font DICT ${fd} is not in the FDArray`);
      return sub;
    };
  } else {
    const sub = privateOf(b, top);
    subfontOf = () => sub;
  }
  // Type 1 charstrings inside CFF are rare; their structure is not run here.
  if (type !== 2) return { format: 'CFF', tally: { glyphs: charStrings.count, failed: 0, firstFailure: null } };
  const tally = tallyGlyphs(charStrings.count, (g) => {
    const at = charStrings.element(g);
    runType2(b, at.offset, at.length, globalSubrs, subfontOf(g).localSubrs, budget);
  });
  return { format: 'CFF', tally };
}

function privateOf(b: FontBytes, dict: Dict): Subfont {
  const priv = dict.get(OP.private);
  if (!priv || priv.length < 2 || priv[0]! <= 0) return { localSubrs: null }; // FreeType uses defaults
  const [size, offset] = priv as [number, number];
  const privDict = readDict(b, offset, size, 'a Private DICT');
  const subrs = privDict.get(OP.subrs)?.[0];
  return { localSubrs: subrs ? readIndex(b, offset + subrs, 'local Subr') : null };
}

function fdSelect(b: FontBytes, at: number, glyphs: number): (glyph: number) => number {
  const format = b.u8(at, 'the FDSelect');
  if (format === 0) {
    b.sub(at + 1, glyphs, 'the FDSelect');
    return (g) => b.u8(at + 1 + g);
  }
  if (format === 3) {
    const ranges = b.u16(at + 1, 'the FDSelect');
    b.sub(at + 3, ranges * 3 + 2, 'the FDSelect ranges');
    return (g) => {
      for (let r = ranges - 1; r >= 0; r--) if (b.u16(at + 3 + r * 3) <= g) return b.u8(at + 5 + r * 3);
      throw new GlyphError('the FDSelect does not cover it');
    };
  }
  throw new FontFormatError(`the FDSelect format ${format} is unknown`);
}

const MAX_OPERANDS = 48;
const MAX_SUBR_DEPTH = 16;

function bias(count: number): number {
  return count < 1240 ? 107 : count < 33900 ? 1131 : 32768;
}

/** Runs one Type 2 charstring for its structure; throws GlyphError where FreeType would fail it. */
function runType2(b: FontBytes, offset: number, length: number, global: Index, local: Index | null, budget: WorkBudget): void {
  if (length === 0) return; // FreeType reads an empty charstring as an empty glyph
  let steps = 0;
  const stack: number[] = [];
  const storage: number[] = new Array<number>(32).fill(0);
  let stems = 0;
  const pop = () => stack.pop() ?? 0;
  const push = (v: number) => {
    if (stack.length >= MAX_OPERANDS) throw new GlyphError(`more than ${MAX_OPERANDS} operands are pushed`);
    stack.push(v);
  };
  const run = (start: number, size: number, depth: number): boolean => {
    if (depth > MAX_SUBR_DEPTH) throw new GlyphError(`its subroutines nest more than ${MAX_SUBR_DEPTH} deep`);
    const end = start + size;
    let p = start;
    while (p < end) {
      budget.spend(1);
      if (++steps > MAX_GLYPH_STEPS) throw new GlyphTooCostly(`takes more than ${grouped(MAX_GLYPH_STEPS)} steps to draw (its subroutines call each other again and again)`);
      const v = b.u8(p);
      if (v === 28) {
        push(b.i16(p + 1));
        p += 3;
        continue;
      }
      if (v >= 32) {
        if (v <= 246) push(v - 139);
        else if (v <= 250) push((v - 247) * 256 + b.u8(p + 1) + 108);
        else if (v <= 254) push(-(v - 251) * 256 - b.u8(p + 1) - 108);
        else push((b.u32(p + 1) | 0) / 65536);
        p += v <= 246 ? 1 : v <= 254 ? 2 : 5;
        continue;
      }
      p++;
      switch (v) {
        case 1: // hstem
        case 3: // vstem
        case 18: // hstemhm
        case 23: // vstemhm
          stems += stack.length >> 1;
          stack.length = 0;
          break;
        case 19: // hintmask
        case 20: // cntrmask
          stems += stack.length >> 1; // an implied vstem
          stack.length = 0;
          p += (stems + 7) >> 3;
          break;
        case 10: // callsubr
        case 29: {
          // callgsubr
          const kind = v === 10 ? 'local' : 'global';
          if (stack.length === 0) throw new GlyphError(`a ${kind} subroutine is called without its number`);
          const subrs = v === 10 ? local : global;
          const number = Math.trunc(pop());
          const index = subrs ? number + bias(subrs.count) : -1;
          if (!subrs || index < 0 || index >= subrs.count) throw new GlyphError(`it calls ${kind} subroutine ${number}, which does not exist`);
          const at = subrs.element(index);
          if (!run(at.offset, at.length, depth + 1)) return false;
          break;
        }
        case 11: // return
          return true;
        case 14: // endchar
          return false;
        case 12:
          escaped(b.u8(p++));
          break;
        default:
          // Path operators use their operands up; unknown ones are ignored by FreeType too.
          stack.length = 0;
      }
    }
    return true; // ran off its end: an implied return (or endchar)
  };
  /** The escaped operators: flex (uses its operands up) and arithmetic on the operand stack. */
  const escaped = (op: number) => {
    switch (op) {
      case 3: // and
        push(+(pop() !== 0 && pop() !== 0));
        return;
      case 4: {
        // or
        const a = pop();
        const c = pop();
        push(+(a !== 0 || c !== 0));
        return;
      }
      case 5: // not
        push(+(pop() === 0));
        return;
      case 9: // abs
        push(Math.abs(pop()));
        return;
      case 10: // add
        push(pop() + pop());
        return;
      case 11: {
        // sub
        const a = pop();
        push(pop() - a);
        return;
      }
      case 12: {
        // div
        const a = pop();
        const c = pop();
        push(a === 0 ? 0 : c / a);
        return;
      }
      case 14: // neg
        push(-pop());
        return;
      case 15: // eq
        // biome-ignore lint/suspicious/noSelfCompare: two pops, two operands
        push(+(pop() === pop()));
        return;
      case 18: // drop
        pop();
        return;
      case 20: {
        // put
        const i = Math.trunc(pop());
        const value = pop();
        if (i >= 0 && i < storage.length) storage[i] = value;
        return;
      }
      case 21: {
        // get
        const i = Math.trunc(pop());
        push(i >= 0 && i < storage.length ? storage[i]! : 0);
        return;
      }
      case 22: {
        // ifelse
        const v2 = pop();
        const v1 = pop();
        const s2 = pop();
        const s1 = pop();
        push(v1 <= v2 ? s1 : s2);
        return;
      }
      case 23: // random
        push(0.5);
        return;
      case 24: // mul
        push(pop() * pop());
        return;
      case 26: // sqrt
        push(Math.sqrt(Math.abs(pop())));
        return;
      case 27: {
        // dup
        const a = pop();
        push(a);
        push(a);
        return;
      }
      case 28: {
        // exch
        const a = pop();
        const c = pop();
        push(a);
        push(c);
        return;
      }
      case 29: {
        // index
        const i = Math.trunc(pop());
        push(stack[stack.length - 1 - Math.max(0, i)] ?? 0);
        return;
      }
      case 30: {
        // roll
        const j = Math.trunc(pop());
        const n = Math.trunc(pop());
        if (n > 0 && n <= stack.length) {
          const part = stack.splice(stack.length - n, n);
          const shift = ((j % n) + n) % n;
          stack.push(...part.slice(n - shift), ...part.slice(0, n - shift));
        }
        return;
      }
      default:
        // flex, hflex, flex1, hflex1, dotsection and reserved operators
        stack.length = 0;
    }
  };
  run(offset, length, 0);
}
