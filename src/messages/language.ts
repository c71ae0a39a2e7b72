/**
 * What one language's file (en.ts, de.ts, …) holds: an entry per finding code, the grammar its
 * sentences take names by, and the words of the customer's pages. catalogue.ts loads a file and
 * formats its strings; the files themselves import only this shape.
 */
import type { FindingCode, OwnChangeCode } from '../model/codes.js';
import type { GENDERS } from '../model/genders.js';
import type { FixableCode } from '../model/policy.js';
import type { UiMessages } from './ui.js';

/** One code's entry: ICU MessageFormat strings. */
export interface Entry {
  title: string;
  problem: string;
  production: string;
  advice: string;
  fixed?: string;
}

/** How a locale's sentences take part and product names. */
export interface Grammar {
  /** Lower-case a name's first letter inside a sentence ("Left sleeve" → "the left sleeve"); German nouns keep their capital. */
  lowerInText: boolean;
  /**
   * Articles follow the noun's gender: a name whose gender the profile does not give stays as
   * written, without an article ("en Delantera", never a wrong "el delantera").
   */
  genderedArticles: boolean;
  /** A page by its number, when the page is no part of the product ("page {page}"). */
  pageName: string;
  /** The whole design, when a finding is about the whole file ("your design"). */
  designName: string;
  /**
   * Forms of a part's name, as ICU templates over `{name}` and `{gender}` ({@link GENDERS}, and `x`
   * for the whole design — "your design", which takes no article — and `p` for a page by its
   * number). Form `on` is the message value `layer_on`, and `layer_On` the same with a
   * capital first letter, for the start of a sentence.
   */
  layer: Record<string, string>;
  /** Forms of the product's name, likewise: `product_<form>`. */
  product: Record<string, string>;
}

/** A locale's catalogue: every code, and `fixed` for every code print-preflight fixes. */
export interface Catalogue {
  grammar: Grammar;
  /** A design in another part's position, named by what it is: `{name}` is the part it belongs to, `{page}` where it is in the file. */
  placed: string;
  /** One item of a page-order list: `{layer_…}` the part, `{page}` the page of the file its design is on. */
  placedItem: string;
  ui: UiMessages;
  /** What a change that answers no finding did (`layers-assembled`), told to the customer. */
  changes: Record<OwnChangeCode, string>;
  codes: { [C in FindingCode]: C extends FixableCode ? Entry & { fixed: string } : Entry };
}
