import { isOutside } from '../rules/threshold.js';
import type { ReportPage } from './schema.js';

/**
 * Whether a page is off its layer's page size by more than the tolerance, as printed (a design in
 * another part's position is): such a page never gets a ✓, whatever findings it has.
 * @example
 * pageSizeOff({ widthMm: 460, heightMm: 260, expectedWidthMm: 560, expectedHeightMm: 750, printScale: 1 }, 2); // true
 */
export function pageSizeOff(page: Pick<ReportPage, 'expectedWidthMm' | 'expectedHeightMm' | 'widthMm' | 'heightMm' | 'printScale'>, toleranceMm: number): boolean {
  if (page.expectedWidthMm === null || page.expectedHeightMm === null) return false;
  const w = page.widthMm * page.printScale;
  const h = page.heightMm * page.printScale;
  // As the page-size checks judge (threshold.ts): sizes as the messages show them, past rounding.
  return isOutside(w, page.expectedWidthMm, toleranceMm, 1) || isOutside(h, page.expectedHeightMm, toleranceMm, 1);
}
