/**
 * Grammatical gender (and number) of a part or product name: masculine, feminine, neuter, and
 * their plurals. Kept apart from the catalogue so that profile schemas load no message code.
 * @example
 * import { GENDERS } from 'print-preflight/customer';
 * GENDERS.includes('f'); // true: a profile names a part's gender for languages that inflect
 */
export const GENDERS = ['m', 'f', 'n', 'mp', 'fp', 'np'] as const;
export type Gender = (typeof GENDERS)[number];
