/**
 * The formats of page previews: `webp` (the default), `png`, or `jpeg` (the cheapest to encode:
 * batch's visual reports).
 */
export const PREVIEW_FORMATS = ['png', 'webp', 'jpeg'] as const;
export type PreviewFormat = (typeof PREVIEW_FORMATS)[number];
