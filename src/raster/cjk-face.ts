/**
 * A system face for Chinese, Japanese and Korean text in fonts that are not embedded. pdf.js draws
 * such text with the canvas's own fonts (it has no glyphs for it), which have no CJK characters:
 * empty boxes. Ghostscript on Debian draws it with Droid Sans Fallback, poppler with what
 * fontconfig finds; the preview does the same with the first of these faces installed, and says
 * which (raster.approximate). Found by its file, so the main thread knows it without loading the
 * canvas library; the same machine's worker draws with it.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

/** A face the preview draws CJK text with. */
export interface CjkFace {
  /** The face's family name, as the page note gives it. */
  family: string;
  /** Its font file. */
  file: string;
}

/**
 * Faces tried in order (Debian packages: fonts-droid-fallback, Ghostscript's own choice there;
 * fonts-noto-cjk; fonts-wqy-microhei; fonts-wqy-zenhei).
 */
export const CJK_FACES: readonly CjkFace[] = [
  { family: 'Droid Sans Fallback', file: '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf' },
  { family: 'Noto Sans CJK', file: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc' },
  { family: 'WenQuanYi Micro Hei', file: '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc' },
  { family: 'WenQuanYi Zen Hei', file: '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc' },
];

let found: CjkFace | null | undefined;

/**
 * The first CJK face installed, or null.
 * @example
 * systemCjkFace(); // { family: 'Droid Sans Fallback', file: '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf' } on Debian with fonts-droid-fallback
 */
export function systemCjkFace(): CjkFace | null {
  found ??= CJK_FACES.find((f) => existsSync(f.file)) ?? null;
  return found;
}

/** The family name the face is registered under in the canvas library: ours, so no installed face of the same name is taken instead. */
export const CJK_FALLBACK_FAMILY = 'print-preflight-cjk';

/** How the page note names the face. */
export function describeFace(face: CjkFace): string {
  return `${face.family} (${basename(face.file)})`;
}

/**
 * `font` (a canvas font shorthand, "36px "g_d0_f1", serif") with the CJK face appended to its
 * families: the canvas takes a character the earlier families lack from the next one, so Latin
 * text keeps its face.
 * @example
 * withCjkFallback('36px "g_d0_f1", serif'); // '36px "g_d0_f1", serif, "print-preflight-cjk"'
 */
export function withCjkFallback(font: string): string {
  return font.includes(CJK_FALLBACK_FAMILY) ? font : `${font}, "${CJK_FALLBACK_FAMILY}"`;
}
