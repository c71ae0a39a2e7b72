/**
 * The formats of page previews: `webp` (the default), `png`, or `jpeg` (the cheapest to encode:
 * batch's visual reports).
 */
export type PreviewFormat = 'png' | 'webp' | 'jpeg';

/** Every {@link PreviewFormat}, for the schemas that take one. */
export const PREVIEW_FORMATS = ['png', 'webp', 'jpeg'] as const satisfies readonly PreviewFormat[];
