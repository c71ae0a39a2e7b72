/**
 * Type 1 programs (FontFile): the clear-text part, the eexec-encrypted private part (binary or
 * hexadecimal), its /Subrs and /CharStrings, and every glyph's charstring, decrypted and run for its
 * structure. A glyph fails where FreeType's Type 1 decoder fails it: an operator it does not know,
 * more than 256 operands, a subroutine that does not exist, subroutines nested past 16.
 */
import { FontFormatError, GlyphError, GlyphTooCostly, MAX_GLYPH_STEPS, tallyGlyphs, type GlyphTally, type WorkBudget } from './bytes.js';
import { grouped } from '../../util/text.js';

const EEXEC_KEY = 55665;
const CHARSTRING_KEY = 4330;
const MAX_OPERANDS = 256;
const MAX_SUBR_DEPTH = 16;

/** True when the data starts like a Type 1 font (text "%!" or a PFB segment header). */
export function looksLikeType1(data: Uint8Array): boolean {
  return (data[0] === 0x25 && data[1] === 0x21) || (data[0] === 0x80 && data[1] === 0x01);
}

/** Checks a Type 1 program. Throws FontFormatError when it cannot be parsed. */
export function checkType1(raw: Uint8Array, budget: WorkBudget): { format: 'Type1'; tally: GlyphTally } {
  const data = raw[0] === 0x80 ? fromPfb(raw) : raw;
  const eexec = indexOf(data, 'eexec', 0);
  if (eexec < 0) throw new FontFormatError('it has no eexec section (its glyphs are missing)');
  let p = eexec + 5;
  while (p < data.length && isSpace(data[p]!)) p++;
  const encrypted = data.subarray(p);
  const binary = !(encrypted.length >= 4 && [0, 1, 2, 3].every((i) => isHex(encrypted[i]!)));
  const priv = decrypt(binary ? encrypted : fromHex(encrypted), EEXEC_KEY, 4);
  const lenIV = numberAfter(priv, '/lenIV') ?? 4;
  const subrs = readSubrs(priv, lenIV);
  const charStrings = readCharStrings(priv, lenIV);
  if (charStrings.length === 0) throw new FontFormatError('its private part holds no /CharStrings');
  // The order of glyphs here is the program's; glyph 0 is checked like the others unless it is .notdef.
  const notdef = charStrings.findIndex((c) => c.name === '.notdef');
  const ordered = notdef > 0 ? [charStrings[notdef]!, ...charStrings.filter((_, i) => i !== notdef)] : notdef === 0 ? charStrings : [{ name: '.notdef', data: new Uint8Array() }, ...charStrings];
  const tally = tallyGlyphs(ordered.length, (g) => runType1(ordered[g]!.data, subrs, budget));
  return { format: 'Type1', tally: notdef < 0 ? { ...tally, glyphs: tally.glyphs - 1 } : tally };
}

function fromPfb(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let p = 0;
  while (p + 6 <= data.length && data[p] === 0x80 && (data[p + 1] === 1 || data[p + 1] === 2)) {
    const size = data[p + 2]! | (data[p + 3]! << 8) | (data[p + 4]! << 16) | (data[p + 5]! << 24);
    if (size < 0 || p + 6 + size > data.length) throw new FontFormatError('a PFB segment runs past the end of the data');
    parts.push(data.subarray(p + 6, p + 6 + size));
    p += 6 + size;
  }
  return Buffer.concat(parts);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function fromHex(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length >> 1);
  let n = 0;
  let high = -1;
  for (const c of data) {
    if (!isHex(c)) {
      if (isSpace(c)) continue;
      break;
    }
    const v = c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
    if (high < 0) high = v;
    else {
      out[n++] = (high << 4) | v;
      high = -1;
    }
  }
  return out.subarray(0, n);
}

function decrypt(data: Uint8Array, key: number, skip: number): Uint8Array {
  let r = key;
  const out = new Uint8Array(Math.max(0, data.length - skip));
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (i >= skip) out[i - skip] = c ^ (r >> 8);
    r = ((c + r) * 52845 + 22719) & 0xffff;
  }
  return out;
}

function indexOf(data: Uint8Array, text: string, from: number): number {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(text, from, 'latin1');
}

/** The integer after a key ("/lenIV 4"), if any. */
function numberAfter(data: Uint8Array, key: string): number | undefined {
  const at = indexOf(data, key, 0);
  if (at < 0) return undefined;
  const m = /^\s*(-?\d+)/.exec(Buffer.from(data.subarray(at + key.length, at + key.length + 16)).toString('latin1'));
  return m ? Number(m[1]) : undefined;
}

/** A tokenizer position over the private part: reads "dup 5 23 RD <23 bytes>" style entries. */
class Tokens {
  constructor(
    readonly data: Uint8Array,
    public p: number,
  ) {}

  skipSpace(): void {
    while (this.p < this.data.length && isSpace(this.data[this.p]!)) this.p++;
  }

  word(): string {
    this.skipSpace();
    const start = this.p;
    while (this.p < this.data.length && !isSpace(this.data[this.p]!)) this.p++;
    return Buffer.from(this.data.subarray(start, this.p)).toString('latin1');
  }

  /** `len RD <len bytes>`: the bytes (RD is followed by one space, then the binary data). */
  binary(): Uint8Array | null {
    const length = Number(this.word());
    const rd = this.word();
    if (!Number.isInteger(length) || length < 0 || (rd !== 'RD' && rd !== '-|')) return null;
    const start = this.p + 1;
    if (start + length > this.data.length) throw new FontFormatError('a charstring runs past the end of the data');
    this.p = start + length;
    return this.data.subarray(start, start + length);
  }
}

function readSubrs(priv: Uint8Array, lenIV: number): Uint8Array[] {
  const at = indexOf(priv, '/Subrs', 0);
  if (at < 0) return [];
  const t = new Tokens(priv, at + 6);
  const count = Number(t.word());
  if (!Number.isInteger(count) || count < 0 || count > 65536) throw new FontFormatError('its /Subrs count is not a number');
  const subrs: Uint8Array[] = [];
  // "/Subrs 5 array" and then "dup 0 15 RD <bytes> NP" entries.
  const mark = t.p;
  if (t.word() !== 'array') t.p = mark;
  for (;;) {
    // Each entry ends in NP, "|" or "noaccess put": words up to the next "dup".
    const mark = t.p;
    let word = t.word();
    for (let skipped = 0; word !== 'dup' && skipped < 3 && word !== '' && word !== 'ND' && !word.startsWith('/'); skipped++) word = t.word();
    if (word !== 'dup') {
      t.p = mark;
      break;
    }
    const index = Number(t.word());
    const data = t.binary();
    if (data === null || !Number.isInteger(index) || index < 0 || index >= count) throw new FontFormatError('a /Subrs entry is malformed');
    subrs[index] = plain(data, lenIV);
  }
  return subrs;
}

function readCharStrings(priv: Uint8Array, lenIV: number): { name: string; data: Uint8Array }[] {
  const at = indexOf(priv, '/CharStrings', 0);
  if (at < 0) return [];
  const t = new Tokens(priv, at + 12);
  const out: { name: string; data: Uint8Array }[] = [];
  // "/CharStrings 42 dict dup begin" and then "/name len RD <bytes> ND" entries until "end".
  for (let guard = 0; guard < 8 && t.p < priv.length; guard++) {
    const mark = t.p;
    const w = t.word();
    if (w.startsWith('/')) {
      t.p = mark;
      break;
    }
  }
  for (;;) {
    // Each entry ends in ND, "|-" or "noaccess def": words up to the next "/name" or "end".
    t.skipSpace();
    for (let skipped = 0; priv[t.p] !== 0x2f && skipped < 3 && t.p < priv.length; skipped++) {
      const mark = t.p;
      if (t.word() === 'end') {
        t.p = mark;
        break;
      }
      t.skipSpace();
    }
    if (priv[t.p] !== 0x2f) break; // "/"
    const name = t.word().slice(1);
    const data = t.binary();
    if (data === null) throw new FontFormatError(`the charstring of /${name} is malformed`);
    out.push({ name, data: plain(data, lenIV) });
  }
  return out;
}

function plain(data: Uint8Array, lenIV: number): Uint8Array {
  return lenIV < 0 ? data : decrypt(data, CHARSTRING_KEY, lenIV);
}

/** Runs one Type 1 charstring for its structure; throws GlyphError where FreeType would fail it. */
function runType1(data: Uint8Array, subrs: Uint8Array[], budget: WorkBudget): void {
  let steps = 0;
  let stack = 0;
  /** Values the last callothersubr left for `pop`. */
  let psValues: number[] = [];
  const numbers: number[] = [];
  const push = (v: number) => {
    if (stack >= MAX_OPERANDS) throw new GlyphError(`more than ${MAX_OPERANDS} operands are pushed`);
    numbers[stack++] = v;
  };
  const run = (code: Uint8Array, depth: number): boolean => {
    if (depth > MAX_SUBR_DEPTH) throw new GlyphError(`its subroutines nest more than ${MAX_SUBR_DEPTH} deep`);
    let p = 0;
    while (p < code.length) {
      budget.spend(1);
      if (++steps > MAX_GLYPH_STEPS) throw new GlyphTooCostly(`takes more than ${grouped(MAX_GLYPH_STEPS)} steps to draw (its subroutines call each other again and again)`);
      const v = code[p]!;
      if (v >= 32) {
        if (v <= 246) push(v - 139);
        else if (v <= 250) push((v - 247) * 256 + (code[p + 1] ?? 0) + 108);
        else if (v <= 254) push(-(v - 251) * 256 - (code[p + 1] ?? 0) - 108);
        else push(((code[p + 1] ?? 0) << 24) | ((code[p + 2] ?? 0) << 16) | ((code[p + 3] ?? 0) << 8) | (code[p + 4] ?? 0));
        p += v <= 246 ? 1 : v <= 254 ? 2 : 5;
        continue;
      }
      p++;
      switch (v) {
        case 10: {
          // callsubr
          if (stack === 0) throw new GlyphError('a subroutine is called without its number');
          const index = numbers[--stack]!;
          const subr = subrs[index];
          if (!subr) throw new GlyphError(`it calls subroutine ${index}, which does not exist`);
          if (!run(subr, depth + 1)) return false;
          break;
        }
        case 11: // return
          return true;
        case 14: // endchar
          return false;
        case 12: {
          const op = code[p++];
          if (op === 16) {
            // callothersubr: the othersubr's number and argument count on top, the arguments below.
            // Its results go to a PostScript stack that `pop` reads: flex (0) leaves two values,
            // the others hand their arguments back (hint replacement: the subroutine to call).
            const which = stack >= 1 ? numbers[stack - 1]! : -1;
            const count = stack >= 2 ? Math.max(0, Math.trunc(numbers[stack - 2]!)) : 0;
            const first = Math.max(0, stack - 2 - count);
            psValues = which === 0 ? [0, 0] : numbers.slice(first, Math.max(first, stack - 2));
            stack = first;
          } else if (op === 17) {
            // pop: the last value the othersubr left
            push(psValues.pop() ?? 0);
          } else if (op === 12) {
            // div
            if (stack >= 2) stack--;
          } else if (op === 0 || op === 1 || op === 2 || op === 6 || op === 7 || op === 33) {
            // dotsection, vstem3, hstem3, seac, sbw, setcurrentpoint
            stack = 0;
          } else {
            throw new GlyphError(`it uses the unknown operator 12 ${op ?? '(missing)'}`);
          }
          break;
        }
        case 1: // hstem
        case 3: // vstem
        case 4: // vmoveto
        case 5: // rlineto
        case 6: // hlineto
        case 7: // vlineto
        case 8: // rrcurveto
        case 9: // closepath
        case 13: // hsbw
        case 15: // an undocumented operator of early fonts, which FreeType reads as a moveto
        case 21: // rmoveto
        case 22: // hmoveto
        case 30: // vhcurveto
        case 31: // hvcurveto
          stack = 0;
          break;
        default:
          throw new GlyphError(`it uses the unknown operator ${v}`);
      }
    }
    return true;
  };
  run(data, 0);
}
