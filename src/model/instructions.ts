/**
 * How a fix that needs an instruction says which one to give, in the words of the surface the
 * caller uses: the command line's flags, the HTTP API's fields, the library's options. A reason
 * sent to an HTTP client never tells it to pass a command-line flag.
 */
import { z } from 'zod';
import type { FindingCode } from './codes.js';

/** Direction to turn sideways pages: clockwise or counter-clockwise. */
export const RotateSchema = z.enum(['cw', 'ccw']);
export type Rotate = z.infer<typeof RotateSchema>;
/**
 * How to fit a page of other proportions than its layer: `contain` (all of it, on the background),
 * `cover` (filling the page, the overflow cut), `stretch` (to the page's proportions).
 */
export type Fit = 'contain' | 'cover' | 'stretch';
/** The fits, as a schema (the public type above stands on its own: the API reference documents it without this). */
export const FitSchema = z.enum(['contain', 'cover', 'stretch'] as const satisfies readonly Fit[]);
// Every Fit is in the schema (`satisfies` above says only the converse).
const everyFit: Fit extends z.infer<typeof FitSchema> ? true : false = true;
void everyFit;

/** Whose words: `cli` (the fix command's flags), `batch` (batch has no per-file instructions), `http` (the service's fields), `library` (options). */
export const InstructionWordsSchema = z.enum(['library', 'cli', 'batch', 'http']);
export type InstructionWords = z.infer<typeof InstructionWordsSchema>;

interface Words {
  /** How to say which way to turn a sideways page. */
  rotate: string;
  /** How to say how to fit a page of other proportions. */
  fit: string;
  /** How to ask for the pages in layer order (`order`: the order the sizes suggest, "3, 4, 1, 2"). */
  reorder: (order: string) => string;
  /** How to approve a fix the approval list holds. */
  approve: (code: FindingCode) => string;
}

const WORDS: Record<InstructionWords, Words> = {
  cli: {
    rotate: 'say --rotate cw or --rotate ccw',
    fit: 'say how to fit it (--fit contain, cover or stretch)',
    reorder: (order) => `say --reorder (pages ${order}) or give the order with --pages`,
    approve: (code) => `approve it (--approve ${code}) to have it made`,
  },
  batch: {
    rotate: 'fix this file on its own with print-preflight fix --rotate cw or --rotate ccw',
    fit: 'fix this file on its own with print-preflight fix --fit contain, cover or stretch',
    reorder: (order) => `set page-order-mismatch to fix (--policy page-order-mismatch=fix puts them as pages ${order})`,
    approve: (code) => `run batch with --fix approve to have it made (${code})`,
  },
  http: {
    rotate: 'send the check again with the field rotate set to cw or ccw',
    fit: 'say how to fit it: send the check again with the field fit set to contain, cover or stretch',
    reorder: (order) => `send the check again with the policy {"page-order-mismatch":"fix"} (pages ${order})`,
    approve: (code) => `send the check with fix "approve" to have it made once approved (${code})`,
  },
  library: {
    rotate: "pass the option rotate: 'cw' or 'ccw'",
    fit: "say how to fit it (the option fit: 'contain', 'cover' or 'stretch')",
    reorder: (order) => `pass the option reorder: true (pages ${order}) or give the order with pages`,
    approve: (code) => `approve it (the option approve: ['${code}']) to have it made`,
  },
};

/**
 * The words of a surface for the instructions a fix may need.
 * @example
 * instructionWords('http').rotate; // 'send the check again with the field rotate set to cw or ccw'
 */
export function instructionWords(words: InstructionWords = 'cli'): Words {
  return WORDS[words];
}
