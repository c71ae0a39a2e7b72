/**
 * The page content scan's public face: the scanner, its limits and its result. The interpreter and
 * its collectors live in ./content/.
 */
export { ContentScanner } from './content/scanner.js';
export { DEFAULT_SCAN_LIMITS, type ScanLimits, type ScanResult } from './content/limits.js';
export { singularValues } from './content/state.js';
