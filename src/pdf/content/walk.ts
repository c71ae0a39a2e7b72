/**
 * The one walk over a content stream: the lexer's operators dispatched through an operator table
 * (operator → handler, as pdf.js's evaluator has `OPS`), inline images handed on. The page scan
 * (scan-operators.ts) and the vector colour rewriter (convert/vector.ts) are its two clients; the
 * colour operators share one table shape (`colourOperators`).
 */
import { lexContent, type InlineImage, type LexerLimits, type Operand } from '../lexer.js';

/**
 * One operator's handler: `frame` is the walk's own state (graphics state, stack, what it builds),
 * `start`/`end` the operator's bytes in the stream (its operands included).
 */
export type OperatorHandler<F> = (frame: F, args: Operand[], start: number, end: number, op: string) => void;

/** Operator → handler. A Map: operator names come from the file (`constructor` is an operator too). */
export type OperatorTable<F> = ReadonlyMap<string, OperatorHandler<F>>;

export interface WalkHooks<F> {
  /** Before the table: false skips the operator (counted, hidden optional content…). */
  before?: (frame: F, op: string, args: Operand[]) => boolean;
  /** `BI … ID … EI`, with the image's bytes in the stream. */
  inlineImage?: (frame: F, image: InlineImage) => void;
  /** The exact data length of an inline image when it can be told (so binary data holding `EI` is skipped). */
  inlineDataLength?: (frame: F, dict: Map<string, Operand>) => number | null;
  /** The lexer's limits (its defaults when absent). */
  lexer?: LexerLimits;
}

/**
 * Walks `bytes`, calling each operator's handler from `table` (operators not in it do nothing).
 * Throws what the lexer throws (ContentSyntaxError) and what the handlers throw.
 */
export function walkContent<F>(bytes: Uint8Array, frame: F, table: OperatorTable<F>, hooks: WalkHooks<F> = {}): void {
  const { before, inlineImage, inlineDataLength } = hooks;
  lexContent(
    bytes,
    (op, args, start, end) => {
      if (before && !before(frame, op, args)) return;
      table.get(op)?.(frame, args, start, end, op);
    },
    inlineImage ? (image) => inlineImage(frame, image) : () => undefined,
    inlineDataLength ? (dict) => inlineDataLength(frame, dict) : () => null,
    hooks.lexer,
  );
}

/** A table from `[operators, handler]` rows; a later row for the same operator replaces an earlier one. */
export function operatorTable<F>(...rows: [readonly string[], OperatorHandler<F>][]): OperatorTable<F> {
  const table = new Map<string, OperatorHandler<F>>();
  for (const [ops, handler] of rows) for (const op of ops) table.set(op, handler);
  return table;
}

/** Which colour an operator sets: the fill's (lower case) or the stroke's (upper case). */
export type Paint = 'fill' | 'stroke';

export type DeviceFamily = 'DeviceGray' | 'DeviceRGB' | 'DeviceCMYK';

/** What the colour operators mean, for a client to act on (ISO 32000-2 §8.6.8). */
export interface ColourHandlers<F> {
  /** `g G rg RG k K`: a device space and a colour in it at once. */
  device(frame: F, paint: Paint, family: DeviceFamily, args: Operand[], start: number, end: number, op: string): void;
  /** `cs CS`: a colour space by name (its initial colour with it). */
  space(frame: F, paint: Paint, args: Operand[], start: number, end: number, op: string): void;
  /** `sc SC`, `scn SCN` (`named`: the n forms, which may name a pattern): a colour in the space in force. */
  colour(frame: F, paint: Paint, args: Operand[], start: number, end: number, op: string, named: boolean): void;
}

const DEVICE_OPS: [string, Paint, DeviceFamily][] = [
  ['g', 'fill', 'DeviceGray'],
  ['G', 'stroke', 'DeviceGray'],
  ['rg', 'fill', 'DeviceRGB'],
  ['RG', 'stroke', 'DeviceRGB'],
  ['k', 'fill', 'DeviceCMYK'],
  ['K', 'stroke', 'DeviceCMYK'],
];

/** The twelve colour operators as table rows. */
export function colourOperators<F>(h: ColourHandlers<F>): [readonly string[], OperatorHandler<F>][] {
  const rows: [readonly string[], OperatorHandler<F>][] = DEVICE_OPS.map(([op, paint, family]) => [[op], (f, args, s, e) => h.device(f, paint, family, args, s, e, op)]);
  rows.push([['cs'], (f, args, s, e, op) => h.space(f, 'fill', args, s, e, op)]);
  rows.push([['CS'], (f, args, s, e, op) => h.space(f, 'stroke', args, s, e, op)]);
  rows.push([['sc'], (f, args, s, e, op) => h.colour(f, 'fill', args, s, e, op, false)]);
  rows.push([['SC'], (f, args, s, e, op) => h.colour(f, 'stroke', args, s, e, op, false)]);
  rows.push([['scn'], (f, args, s, e, op) => h.colour(f, 'fill', args, s, e, op, true)]);
  rows.push([['SCN'], (f, args, s, e, op) => h.colour(f, 'stroke', args, s, e, op, true)]);
  return rows;
}
