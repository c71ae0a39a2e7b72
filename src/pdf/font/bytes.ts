/**
 * Big-endian reads over a font program that never go past its end: a read outside the data throws
 * {@link FontFormatError}, which the checks turn into "the program cannot be parsed".
 */

/** The font program is not what its format requires (the message says where). */
export class FontFormatError extends Error {}

/** A glyph outline that cannot be decoded (the message says why). */
export class GlyphError extends Error {}

/**
 * A glyph whose drawing takes more steps than any glyph in use (subroutines calling each other
 * again and again): it fails, and the font is a hazard to give a renderer, which would work
 * through every step.
 */
export class GlyphTooCostly extends GlyphError {}

/** Steps (charstring operators, subroutine calls included) one glyph may take: glyphs in use take a few thousand. */
export const MAX_GLYPH_STEPS = 100_000;

/** The work allowed for one program was used up: the rest is left unchecked, never judged. */
export class FontBudgetExceeded extends Error {}

export class FontBytes {
  constructor(readonly data: Uint8Array) {}

  get length(): number {
    return this.data.length;
  }

  private need(offset: number, size: number, what: string): void {
    if (!(offset >= 0 && offset + size <= this.data.length)) {
      throw new FontFormatError(`${what} lies outside the data (byte ${offset} of ${this.data.length})`);
    }
  }

  u8(offset: number, what = 'a byte'): number {
    this.need(offset, 1, what);
    return this.data[offset]!;
  }

  u16(offset: number, what = 'a 16-bit value'): number {
    this.need(offset, 2, what);
    return (this.data[offset]! << 8) | this.data[offset + 1]!;
  }

  i16(offset: number, what = 'a 16-bit value'): number {
    const v = this.u16(offset, what);
    return v & 0x8000 ? v - 0x10000 : v;
  }

  u32(offset: number, what = 'a 32-bit value'): number {
    this.need(offset, 4, what);
    return ((this.data[offset]! << 24) >>> 0) + ((this.data[offset + 1]! << 16) | (this.data[offset + 2]! << 8) | this.data[offset + 3]!);
  }

  /** An unsigned integer of 1–4 bytes (CFF offsets). */
  uN(offset: number, size: number, what = 'an offset'): number {
    this.need(offset, size, what);
    let v = 0;
    for (let i = 0; i < size; i++) v = v * 256 + this.data[offset + i]!;
    return v;
  }

  tag(offset: number): string {
    this.need(offset, 4, 'a table tag');
    return String.fromCharCode(this.data[offset]!, this.data[offset + 1]!, this.data[offset + 2]!, this.data[offset + 3]!);
  }

  sub(offset: number, size: number, what: string): Uint8Array {
    this.need(offset, size, what);
    return this.data.subarray(offset, offset + size);
  }
}

/** Counts work units (glyph operators, points) against a fixed allowance. */
export class WorkBudget {
  private used = 0;
  constructor(readonly limit: number) {}

  spend(units: number): void {
    this.used += units;
    if (this.used > this.limit) throw new FontBudgetExceeded(`more than ${this.limit} units of glyph work`);
  }
}

/** What checking one program's glyphs found. */
export interface GlyphTally {
  glyphs: number;
  /** Glyphs other than glyph 0 (.notdef) whose outline cannot be decoded. */
  failed: number;
  /** The first failure, for the message ("glyph 12: …"). */
  firstFailure: string | null;
  /** Why a renderer must not be given the font (a glyph it would work on for minutes), if it must not. */
  hazard?: string;
}

/** Checks glyphs 1… with `check` (glyph 0, .notdef, is only drawn for codes a font lacks). */
export function tallyGlyphs(count: number, check: (glyph: number) => void): GlyphTally {
  const tally: GlyphTally = { glyphs: count, failed: 0, firstFailure: null };
  for (let g = 1; g < count; g++) {
    try {
      check(g);
    } catch (error) {
      if (!(error instanceof GlyphError || error instanceof FontFormatError)) throw error;
      tally.failed++;
      tally.firstFailure ??= `glyph ${g}: ${error.message}`;
      if (error instanceof GlyphTooCostly) tally.hazard ??= `glyph ${g} ${error.message} (a renderer would work on it for minutes)`;
    }
  }
  return tally;
}
