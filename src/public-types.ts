/**
 * Types that signatures of the public API name, so that a user (and the API reference) can name
 * them too. Types only: no runtime name is added to the entry point by this file.
 */
export type { ScanLimits } from './pdf/content-scan.js';
export type { DecodeBudget } from './pdf/decode-budget.js';
export type { ColourSpaceFacts } from './pdf/facts.js';
export type { FontProgramLimits } from './pdf/font/program.js';
export type { ScreenLimits } from './pdf/screen.js';
export type { JpegScanLimits } from './pdf/jpeg-scans.js';
export type { Target as ProfileTarget } from './profile/registry.js';
export type { PreviewFormat } from './raster/preview.js';
export type { TextOptions } from './report/text.js';
export type { Rect } from './model/geometry.js';
export type { BatchOut } from './batch/run.js';
export type { StoredInput } from './batch/stored.js';
