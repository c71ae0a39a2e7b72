/**
 * A lexer for PDF content streams (ISO 32000-2 §7.2, §8.9.7 for inline images). It walks the bytes
 * once and hands each operator with its operands to a callback; strings are skipped, not decoded,
 * because no check needs their text.
 */

export type Operand = number | boolean | null | PdfNameToken | PdfStringToken | Operand[] | OperandDict;
export interface PdfNameToken {
  readonly name: string;
}
export interface PdfStringToken {
  readonly string: true;
}
export interface OperandDict {
  readonly dict: Map<string, Operand>;
}

export const isName = (o: Operand | undefined): o is PdfNameToken => typeof o === 'object' && o !== null && 'name' in o;
export const isNum = (o: Operand | undefined): o is number => typeof o === 'number';

const STRING_TOKEN: PdfStringToken = Object.freeze({ string: true as const });

const WS = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WS[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;
const isRegular = (c: number) => !WS[c] && !DELIM[c];

/** Raised for content that cannot be lexed at all; the scanner turns it into a page note. */
export class ContentSyntaxError extends Error {}
/** A content stream past one of the lexer's limits (nesting, operands, token length, items): an attack on parsers, not a typo. */
export class ContentLimitError extends ContentSyntaxError {}

export interface InlineImage {
  dict: Map<string, Operand>;
  /** Byte offsets of the image data within the content stream. */
  dataStart: number;
  dataEnd: number;
}

export interface LexerLimits {
  /** Deepest nesting of arrays and dictionaries accepted. */
  maxNesting: number;
  /** Most operands kept before an operator (more are a malformed stream). */
  maxOperands: number;
  /** Longest name or operator, in bytes. */
  maxTokenBytes?: number;
  /** Most items in the arrays and dictionaries open before an operator, together. */
  maxContainerItems?: number;
}

const DEFAULT_LIMITS: LexerLimits = { maxNesting: 256, maxOperands: 4096, maxTokenBytes: 64 * 1024, maxContainerItems: 1_000_000 };

/**
 * Calls `onOperator(op, operands)` for each operator of `bytes`. For `BI … ID … EI` it calls
 * `onInlineImage` with the image dictionary, and `inlineDataLength(dict)` may tell the exact data
 * length (uncompressed images); otherwise the end is found by searching for a delimited `EI`.
 * Returns false when `onOperator` asked to stop by returning false.
 */
export function lexContent(
  bytes: Uint8Array,
  onOperator: (op: string, operands: Operand[], start: number, end: number) => boolean | void,
  onInlineImage: (image: InlineImage) => void,
  inlineDataLength: (dict: Map<string, Operand>) => number | null,
  limits: LexerLimits = DEFAULT_LIMITS,
): boolean {
  const n = bytes.length;
  const maxToken = limits.maxTokenBytes ?? DEFAULT_LIMITS.maxTokenBytes!;
  const maxItems = limits.maxContainerItems ?? DEFAULT_LIMITS.maxContainerItems!;
  /** Items in the containers open now: an unclosed `[` must not grow without end. */
  let containerItems = 0;
  let pos = 0;
  let operands: Operand[] = [];
  /** Where the current operator's first operand began (its byte range is start..end of the operator). */
  let opStart = -1;
  // Containers being built: arrays and dicts (dict kept as flat key/value list until closed).
  const stack: { kind: 'array' | 'dict'; items: Operand[] }[] = [];

  const push = (value: Operand) => {
    const top = stack[stack.length - 1];
    if (top) {
      if (++containerItems > maxItems) throw new ContentLimitError(`more than ${maxItems} items in arrays or dictionaries before an operator`);
      top.items.push(value);
    } else if (operands.length < limits.maxOperands) operands.push(value);
    else throw new ContentLimitError(`more than ${limits.maxOperands} operands before an operator`);
  };

  const skipWs = () => {
    while (pos < n) {
      const c = bytes[pos]!;
      if (WS[c]) pos++;
      else if (c === 0x25 /* % */) {
        while (pos < n && bytes[pos] !== 10 && bytes[pos] !== 13) pos++;
      } else break;
    }
  };

  while (pos < n) {
    skipWs();
    if (pos >= n) break;
    if (opStart < 0) opStart = pos;
    const c = bytes[pos]!;
    if (c === 0x2f /* / */) {
      pos++;
      const start = pos;
      while (pos < n && isRegular(bytes[pos]!)) pos++;
      if (pos - start > maxToken) throw new ContentLimitError(`a name longer than ${maxToken} bytes`);
      push({ name: decodeName(bytes, start, pos) });
    } else if (c === 0x28 /* ( */) {
      pos = skipLiteralString(bytes, pos);
      push(STRING_TOKEN);
    } else if (c === 0x3c /* < */) {
      if (bytes[pos + 1] === 0x3c) {
        pos += 2;
        if (stack.length >= limits.maxNesting) throw new ContentLimitError('nesting too deep');
        stack.push({ kind: 'dict', items: [] });
      } else {
        const end = bytes.indexOf(0x3e, pos + 1);
        pos = end < 0 ? n : end + 1;
        push(STRING_TOKEN);
      }
    } else if (c === 0x3e /* > */) {
      pos += bytes[pos + 1] === 0x3e ? 2 : 1;
      const top = stack.pop();
      if (top) containerItems -= top.items.length;
      if (top?.kind === 'dict') push({ dict: pairs(top.items) });
    } else if (c === 0x5b /* [ */) {
      pos++;
      if (stack.length >= limits.maxNesting) throw new ContentLimitError('nesting too deep');
      stack.push({ kind: 'array', items: [] });
    } else if (c === 0x5d /* ] */) {
      pos++;
      const top = stack.pop();
      if (top) containerItems -= top.items.length;
      if (top?.kind === 'array') push(top.items);
    } else if (c === 0x7b || c === 0x7d || c === 0x29) {
      pos++; // braces (PostScript functions) and stray ')' carry nothing we need
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      const start = pos;
      pos++;
      while (pos < n && isRegular(bytes[pos]!)) pos++;
      push(parseNumber(bytes, start, pos));
    } else {
      const start = pos;
      while (pos < n && isRegular(bytes[pos]!)) pos++;
      if (pos === start) {
        pos++; // a lone delimiter we do not use
        if (operands.length === 0 && stack.length === 0) opStart = -1;
        continue;
      }
      if (pos - start > maxToken) throw new ContentLimitError(`an operator longer than ${maxToken} bytes`);
      const word = pos - start <= 3 ? shortWord(bytes, start, pos) : ascii(bytes, start, pos);
      if (word === 'true' || word === 'false') push(word === 'true');
      else if (word === 'null') push(null);
      else if (stack.length > 0) {
        // An operator inside an unclosed array or dict: the container was never closed. Drop it.
        stack.length = 0;
        containerItems = 0;
        operands = [];
        opStart = -1;
      } else if (word === 'BI') {
        operands = [];
        opStart = -1;
        pos = readInlineImage(bytes, pos, onInlineImage, inlineDataLength, maxItems);
      } else {
        const keepGoing = onOperator(word, operands, opStart, pos);
        operands = [];
        opStart = -1;
        if (keepGoing === false) return false;
      }
    }
  }
  return true;
}

function pairs(items: Operand[]): Map<string, Operand> {
  const map = new Map<string, Operand>();
  for (let i = 0; i + 1 < items.length; i += 2) {
    const key = items[i];
    if (isName(key)) map.set(key.name, items[i + 1]!);
  }
  return map;
}

/**
 * The content operators (ISO 32000-2 Annex A), by their bytes: each is a string made once, where
 * they are met millions of times. Any other word is spelled out.
 */
const OPERATOR_WORDS = new Map<number, string>(
  (
    'b B b* B* BDC BI BMC BT BX c cm CS cs d d0 d1 Do DP EI EMC ET EX f F f* G g gs h i ID j J K k l m M MP n q Q re ' +
    'RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf TJ Tj TL Tm Tr Ts Tw Tz v w W W* y \' "'
  )
    .split(' ')
    .map((word) => [wordKey(word), word]),
);

function wordKey(word: string): number {
  let key = word.length;
  for (let i = 0; i < word.length; i++) key = (key << 8) | word.charCodeAt(i);
  return key;
}

function shortWord(bytes: Uint8Array, start: number, end: number): string {
  let key = end - start;
  for (let i = start; i < end; i++) key = (key << 8) | bytes[i]!;
  return OPERATOR_WORDS.get(key) ?? ascii(bytes, start, end);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

function decodeName(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c === 0x23 /* # */ && i + 2 < end && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      s += String.fromCharCode(parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16));
      i += 2;
    } else s += String.fromCharCode(c);
  }
  return s;
}

const isHex = (c: number | undefined) => c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

/** Parses a PDF number leniently, as viewers do ("--5" → -5, "1.2.3" → 1.2, "-" → 0). */
export function parseNumber(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let sign = 1;
  while (i < end && (bytes[i] === 0x2b || bytes[i] === 0x2d)) {
    if (bytes[i] === 0x2d) sign = -sign;
    i++;
  }
  let value = 0;
  let scale = 0;
  for (; i < end; i++) {
    const c = bytes[i]!;
    if (c >= 0x30 && c <= 0x39) {
      value = value * 10 + (c - 0x30);
      if (scale) scale *= 10;
    } else if (c === 0x2e && !scale) scale = 1;
    else break;
  }
  const v = scale > 1 ? value / scale : value;
  return Number.isFinite(v) ? sign * v : 0;
}

/** Returns the position after the literal string that starts at `pos` (balanced parens, escapes). */
function skipLiteralString(bytes: Uint8Array, pos: number): number {
  const n = bytes.length;
  let depth = 0;
  for (; pos < n; pos++) {
    const c = bytes[pos];
    if (c === 0x5c) pos++;
    else if (c === 0x28) depth++;
    else if (c === 0x29) {
      depth--;
      if (depth === 0) return pos + 1;
    }
  }
  return n;
}

function readInlineImage(bytes: Uint8Array, pos: number, onInlineImage: (image: InlineImage) => void, inlineDataLength: (dict: Map<string, Operand>) => number | null, maxItems: number): number {
  const items: Operand[] = [];
  let found = false;
  // Lex key/value pairs up to the ID keyword with a nested lexer over the remaining bytes.
  const n = bytes.length;
  let p = pos;
  while (p < n) {
    while (p < n && WS[bytes[p]!]) p++;
    if (bytes[p] === 0x49 && bytes[p + 1] === 0x44 && (p + 2 >= n || !isRegular(bytes[p + 2]!))) {
      p += 2;
      found = true;
      break;
    }
    // One token (possibly an array) at a time.
    const start = p;
    const end = tokenEnd(bytes, p);
    if (end <= start) {
      p++;
      continue;
    }
    const value = firstOperand(bytes.subarray(start, end));
    if (value !== undefined) items.push(value);
    if (items.length > maxItems) throw new ContentLimitError(`an inline image dictionary of more than ${maxItems} items`);
    p = end;
  }
  if (!found) return n;
  // One whitespace byte separates ID from the data.
  if (p < n && WS[bytes[p]!]) p++;
  const dict = pairs(items);
  const dataStart = p;
  const known = inlineDataLength(dict);
  if (known !== null && known >= 0 && dataStart + known <= n) {
    // Trust the computed length when "EI" follows it (after optional whitespace).
    let q = dataStart + known;
    while (q < n && WS[bytes[q]!]) q++;
    if (bytes[q] === 0x45 && bytes[q + 1] === 0x49) {
      onInlineImage({ dict, dataStart, dataEnd: dataStart + known });
      return q + 2;
    }
  }
  const dataEnd = findEI(bytes, dataStart);
  onInlineImage({ dict, dataStart, dataEnd: dataEnd < 0 ? n : dataEnd });
  return dataEnd < 0 ? n : dataEnd + 2;
}

/** End of the token starting at p (strings, hex, arrays, dicts balanced). */
function tokenEnd(bytes: Uint8Array, p: number): number {
  const n = bytes.length;
  const c = bytes[p]!;
  if (c === 0x28) return skipLiteralString(bytes, p);
  if (c === 0x5b || (c === 0x3c && bytes[p + 1] === 0x3c)) {
    let depth = 0;
    for (let i = p; i < n; i++) {
      const d = bytes[i]!;
      if (d === 0x28) {
        i = skipLiteralString(bytes, i) - 1;
        continue;
      }
      if (d === 0x5b) depth++;
      else if (d === 0x5d) depth--;
      else if (d === 0x3c && bytes[i + 1] === 0x3c) {
        depth++;
        i++;
      } else if (d === 0x3e && bytes[i + 1] === 0x3e) {
        depth--;
        i++;
      }
      if (depth === 0) return i + 1;
    }
    return n;
  }
  if (c === 0x3c) {
    const e = bytes.indexOf(0x3e, p);
    return e < 0 ? n : e + 1;
  }
  let i = p + 1;
  if (c !== 0x2f && DELIM[c]) return i;
  while (i < n && isRegular(bytes[i]!)) i++;
  return i;
}

function firstOperand(bytes: Uint8Array): Operand | undefined {
  let out: Operand | undefined;
  // Append a dummy operator so the lexer hands the operand over.
  const withOp = new Uint8Array(bytes.length + 2);
  withOp.set(bytes);
  withOp[bytes.length] = 0x20;
  withOp[bytes.length + 1] = 0x5a; // 'Z'
  lexContent(
    withOp,
    (_op, operands) => {
      out = operands[0];
      return false;
    },
    () => undefined,
    () => null,
  );
  return out;
}

/**
 * Finds the `EI` that ends inline image data: preceded by whitespace, followed by whitespace or the
 * end, and followed by text that looks like content (binary data can contain " EI " by chance).
 */
function findEI(bytes: Uint8Array, from: number): number {
  const n = bytes.length;
  for (let i = from; i + 1 < n; i++) {
    if (bytes[i] !== 0x45 || bytes[i + 1] !== 0x49) continue;
    if (i > from && !WS[bytes[i - 1]!]) continue;
    const after = bytes[i + 2];
    if (after !== undefined && !WS[after] && !DELIM[after]) continue;
    let plausible = true;
    for (let j = i + 2; j < Math.min(n, i + 2 + 32); j++) {
      const b = bytes[j]!;
      if (!WS[b] && (b < 0x20 || b > 0x7e)) {
        plausible = false;
        break;
      }
    }
    if (plausible) return i;
  }
  return -1;
}
