/**
 * Mockups: each layer's page drawn onto the part of the product it prints — the garment piece cut
 * to its shape (body front and back, sleeves, hood sides, pocket, legs), a duvet face, a curtain on
 * its rod — with the bleed that is cut away shown faint around it, and the cut, bleed and safe
 * lines. Made with sharp from the page previews (SVG shapes composited onto them), no renderer of
 * its own: what a mockup shows is exactly what the preview shows, placed the way production
 * places it (the page stretched onto the layer's page, trim + 2 × bleed).
 */
import { designsByPage } from '../messages/catalogue.js';
import type { ResolvedTarget } from '../profile/registry.js';
import type { PanelShape } from '../profile/shapes.js';
import type { Report } from './schema.js';
import type { Preview } from '../model/preview.js';

/** A page preview: an image sharp reads (WebP or PNG). */
export type MockupPreview = Pick<Preview, 'bytes'>;

export interface MockupLayer {
  /** The layer's trim size. */
  trimWidthMm: number;
  trimHeightMm: number;
  bleedMm: number;
  /** Distance inside the trim that text keeps clear of; null: no safe line. */
  safeMarginMm: number | null;
  shape: PanelShape;
}

/** Longest side of a mockup, in pixels, unless asked otherwise. */
export const MOCKUP_SIZE_PX = 520;

/**
 * A garment piece's outline in unit coordinates of its trim box (x right, y down, 0–1), absolute
 * M, L, C, Q commands only (every number pair is a point, so it can be placed and mirrored).
 */
const LEFT_OUTLINES = {
  // A T-shirt, sweater or hoodie body: shoulders sloping from the neck, armholes, straight sides.
  'body-front': 'M 0.33 0 C 0.37 0.13 0.63 0.13 0.67 0 L 0.96 0.05 C 0.9 0.14 0.92 0.25 1 0.3 L 1 1 L 0 1 L 0 0.3 C 0.08 0.25 0.1 0.14 0.04 0.05 Z',
  'body-back': 'M 0.33 0 C 0.38 0.04 0.62 0.04 0.67 0 L 0.96 0.05 C 0.9 0.14 0.92 0.25 1 0.3 L 1 1 L 0 1 L 0 0.3 C 0.08 0.25 0.1 0.14 0.04 0.05 Z',
  // A tank top: narrow straps, deep armholes.
  'tank-front': 'M 0.22 0 L 0.34 0 C 0.38 0.2 0.62 0.2 0.66 0 L 0.78 0 C 0.8 0.18 0.88 0.3 1 0.33 L 1 1 L 0 1 L 0 0.33 C 0.12 0.3 0.2 0.18 0.22 0 Z',
  'tank-back': 'M 0.22 0 L 0.34 0 C 0.38 0.08 0.62 0.08 0.66 0 L 0.78 0 C 0.8 0.18 0.88 0.3 1 0.33 L 1 1 L 0 1 L 0 0.33 C 0.12 0.3 0.2 0.18 0.22 0 Z',
  // Sleeves: the rounded cap on top, the hem below.
  'sleeve-short': 'M 0 0.78 C 0.12 0.26 0.32 0 0.5 0 C 0.68 0 0.88 0.26 1 0.78 L 0.93 1 L 0.07 1 Z',
  'sleeve-long': 'M 0 0.3 C 0.15 0.08 0.32 0 0.5 0 C 0.68 0 0.85 0.08 1 0.3 L 0.8 1 L 0.2 1 Z',
  // Hood sides: the face opening straight at the front, the crown rounded at the back.
  'hood-left': 'M 0.12 1 L 0 0.55 C 0 0.18 0.3 0 0.62 0 C 0.85 0 0.98 0.12 1 0.3 L 1 0.9 L 0.88 1 Z',
  // A kangaroo pocket: the hand openings curve down the sides.
  pocket: 'M 0.2 0 L 0.8 0 C 0.84 0.45 0.92 0.75 1 1 L 0 1 C 0.08 0.75 0.16 0.45 0.2 0 Z',
  // Trouser legs: the crotch curve on the inner side, tapering to the cuff.
  'leg-front-left': 'M 0 0 L 0.82 0 L 0.84 0.22 C 0.86 0.28 0.92 0.3 1 0.31 L 0.86 1 L 0.12 1 Z',
  'leg-back-left': 'M 0 0.02 L 0.78 0 L 0.82 0.24 C 0.86 0.31 0.93 0.34 1 0.35 L 0.88 1 L 0.1 1 Z',
  'shorts-front-left': 'M 0 0 L 0.82 0 L 0.84 0.42 C 0.86 0.54 0.93 0.58 1 0.6 L 0.96 1 L 0.04 1 Z',
  'shorts-back-left': 'M 0 0.03 L 0.78 0 L 0.82 0.45 C 0.86 0.58 0.93 0.63 1 0.65 L 0.97 1 L 0.03 1 Z',
  // Flat panels: a duvet face, a curtain (drawn hanging from its rod).
  panel: 'M 0.015 0 L 0.985 0 Q 1 0 1 0.015 L 1 0.985 Q 1 1 0.985 1 L 0.015 1 Q 0 1 0 0.985 L 0 0.015 Q 0 0 0.015 0 Z',
  'curtain-left': 'M 0 0 L 1 0 L 1 1 L 0 1 Z',
};

/** A unit outline mirrored left to right (every x → 1 − x). */
function mirrored(path: string): string {
  let axis = 0;
  return path.replace(/-?\d+(?:\.\d+)?/g, (n) => {
    const out = axis === 0 ? String(Math.round((1 - Number(n)) * 1000) / 1000) : n;
    axis = 1 - axis;
    return out;
  });
}

/** The right-hand parts are the left-hand ones mirrored. */
const OUTLINES: Record<PanelShape, string> = {
  ...LEFT_OUTLINES,
  'hood-right': mirrored(LEFT_OUTLINES['hood-left']),
  'leg-front-right': mirrored(LEFT_OUTLINES['leg-front-left']),
  'leg-back-right': mirrored(LEFT_OUTLINES['leg-back-left']),
  'shorts-front-right': mirrored(LEFT_OUTLINES['shorts-front-left']),
  'shorts-back-right': mirrored(LEFT_OUTLINES['shorts-back-left']),
  'curtain-right': LEFT_OUTLINES['curtain-left'],
};

const isCurtain = (shape: PanelShape) => shape === 'curtain-left' || shape === 'curtain-right';

/** The outline placed in a box (pixels): every number pair of the unit path mapped into it. */
export function placeOutline(shape: PanelShape, box: { x: number; y: number; width: number; height: number }): string {
  let axis = 0;
  return OUTLINES[shape].replace(/-?\d+(?:\.\d+)?/g, (n) => {
    const v = Number(n);
    const out = axis === 0 ? box.x + v * box.width : box.y + v * box.height;
    axis = 1 - axis;
    return out.toFixed(1);
  });
}

/** Where things are on a mockup, in pixels. */
export interface MockupGeometry {
  width: number;
  height: number;
  /** The layer's page (trim + bleed), where the preview is drawn. */
  page: { x: number; y: number; width: number; height: number };
  trim: { x: number; y: number; width: number; height: number };
  safe: { x: number; y: number; width: number; height: number } | null;
}

/** The layout of a layer's mockup at a size. */
export function mockupGeometry(layer: MockupLayer, maxPx = MOCKUP_SIZE_PX): MockupGeometry {
  const pageW = layer.trimWidthMm + 2 * layer.bleedMm;
  const pageH = layer.trimHeightMm + 2 * layer.bleedMm;
  const margin = 0.05 * Math.max(pageW, pageH);
  // A curtain hangs from a rod above it.
  const top = isCurtain(layer.shape) ? margin * 2.2 : margin;
  const fullW = pageW + 2 * margin;
  const fullH = pageH + margin + top;
  const scale = maxPx / Math.max(fullW, fullH);
  const px = (mm: number) => mm * scale;
  const page = { x: px(margin), y: px(top), width: px(pageW), height: px(pageH) };
  const trim = { x: page.x + px(layer.bleedMm), y: page.y + px(layer.bleedMm), width: px(layer.trimWidthMm), height: px(layer.trimHeightMm) };
  const s = layer.safeMarginMm;
  const safe =
    s !== null && 2 * s < Math.min(layer.trimWidthMm, layer.trimHeightMm)
      ? { x: trim.x + px(s), y: trim.y + px(s), width: px(layer.trimWidthMm - 2 * s), height: px(layer.trimHeightMm - 2 * s) }
      : null;
  return { width: Math.round(px(fullW)), height: Math.round(px(fullH)), page, trim, safe };
}

const r1 = (n: number) => n.toFixed(1);
const rect = (b: { x: number; y: number; width: number; height: number }, attrs: string) => `<rect x="${r1(b.x)}" y="${r1(b.y)}" width="${r1(b.width)}" height="${r1(b.height)}" ${attrs}/>`;

/**
 * The mockup of one layer: its page's preview on the part's shape, as a PNG.
 * @param preview the page's preview (the page as it prints)
 * @param layer the layer's trim size, bleed, safe margin and shape
 * @param maxPx the longest side of the mockup (default 520)
 * @example
 * const png = await renderMockup(previews.get(1)!, { trimWidthMm: 540, trimHeightMm: 730, bleedMm: 10, safeMarginMm: 10, shape: 'body-front' });
 */
export async function renderMockup(preview: MockupPreview, layer: MockupLayer, maxPx = MOCKUP_SIZE_PX): Promise<Uint8Array> {
  const sharp = (await import('sharp')).default;
  const g = mockupGeometry(layer, maxPx);
  const pageW = Math.max(1, Math.round(g.page.width));
  const pageH = Math.max(1, Math.round(g.page.height));
  const px = Math.round(g.page.x);
  const py = Math.round(g.page.y);
  // The page as production places it: stretched onto the layer's page.
  const design = await sharp(preview.bytes, { limitInputPixels: 64_000_000 }).resize(pageW, pageH, { fit: 'fill' }).flatten({ background: '#ffffff' }).ensureAlpha().png().toBuffer();
  // Coordinates inside the page image.
  const local = { x: g.trim.x - px, y: g.trim.y - py, width: g.trim.width, height: g.trim.height };
  const outline = placeOutline(layer.shape, g.trim);
  const localOutline = placeOutline(layer.shape, local);
  const svg = (w: number, h: number, body: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`);
  const mask = svg(pageW, pageH, `<path d="${localOutline}" fill="#000"/>`);
  const panel = await sharp(design)
    .composite([{ input: mask, blend: 'dest-in' }])
    .png()
    .toBuffer();
  // What is printed and then cut away: the page, faint.
  const ghost = await sharp(design)
    .composite([{ input: svg(pageW, pageH, `<rect width="${pageW}" height="${pageH}" fill="#eef0f3" fill-opacity="0.78"/>`) }])
    .png()
    .toBuffer();
  const shadow = await sharp(svg(g.width, g.height, `<path d="${placeOutline(layer.shape, { ...g.trim, x: g.trim.x + 3, y: g.trim.y + 5 })}" fill="#000" fill-opacity="0.32"/>`))
    .blur(5)
    .png()
    .toBuffer();
  // Fabric: a soft light at the top and shade at the hem, on the outer fifths only: the design
  // area keeps the preview's colours (a grey veil over the whole part moved a red by ΔE00 3.3);
  // a curtain falls in folds.
  const folds = isCurtain(layer.shape) ? foldsOf(g.trim) : '';
  const shading = svg(
    g.width,
    g.height,
    `<defs><linearGradient id="light" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="0.06"/><stop offset="0.2" stop-color="#fff" stop-opacity="0"/><stop offset="0.8" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.06"/></linearGradient><clipPath id="cut"><path d="${outline}"/></clipPath></defs><g clip-path="url(#cut)"><rect x="0" y="0" width="${g.width}" height="${g.height}" fill="url(#light)"/>${folds}</g>`,
  );
  const lines = svg(
    g.width,
    g.height,
    [
      rect(g.page, 'fill="none" stroke="#b4005a" stroke-width="1" stroke-opacity="0.55"'),
      rect(g.trim, 'fill="none" stroke="#b4005a" stroke-width="1.5" stroke-dasharray="7 4"'),
      g.safe ? `<path d="${placeOutline(layer.shape, g.safe)}" fill="none" stroke="#0550ae" stroke-width="1.5" stroke-dasharray="2 3"/>` : '',
      `<path d="${outline}" fill="none" stroke="#3d444d" stroke-width="2" stroke-linejoin="round"/>`,
      isCurtain(layer.shape) ? rodOf(g) : '',
    ].join(''),
  );
  const png = await sharp({ create: { width: g.width, height: g.height, channels: 4, background: '#eef0f3' } })
    .composite([
      { input: ghost, left: px, top: py },
      { input: shadow, left: 0, top: 0 },
      { input: panel, left: px, top: py },
      { input: shading, left: 0, top: 0 },
      { input: lines, left: 0, top: 0 },
    ])
    // Full colour: a 256-colour palette moved a photo's colours by a mean ΔE00 of 1.2.
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
  return new Uint8Array(png);
}

/** Vertical folds of a hanging curtain: light and shade bands across its width. */
function foldsOf(trim: { x: number; y: number; width: number; height: number }): string {
  const n = 7;
  const stops = Array.from({ length: n * 2 + 1 }, (_, i) => `<stop offset="${(i / (n * 2)).toFixed(3)}" stop-color="${i % 2 ? '#000' : '#fff'}" stop-opacity="${i % 2 ? 0.13 : 0.1}"/>`).join('');
  return `<linearGradient id="folds" x1="0" y1="0" x2="1" y2="0">${stops}</linearGradient>${rect(trim, 'fill="url(#folds)"')}`;
}

/** A curtain rod across the top, and the rings the curtain hangs from. */
function rodOf(g: MockupGeometry): string {
  const y = g.page.y - g.page.y * 0.45;
  const rings = Array.from({ length: 8 }, (_, i) => {
    const x = g.trim.x + (g.trim.width * (i + 0.5)) / 8;
    return `<ellipse cx="${r1(x)}" cy="${r1(y + 4)}" rx="5" ry="7" fill="none" stroke="#57606a" stroke-width="2"/><line x1="${r1(x)}" y1="${r1(y + 11)}" x2="${r1(x)}" y2="${r1(g.trim.y)}" stroke="#57606a" stroke-width="1"/>`;
  }).join('');
  return `<rect x="${r1(g.page.x - 6)}" y="${r1(y - 3)}" width="${r1(g.page.width + 12)}" height="6" rx="3" fill="#3d444d"/>${rings}`;
}

/** A layer's shape when its profile names none: a plain panel. */
export const DEFAULT_SHAPE: PanelShape = 'panel';

/**
 * The mockup of every page that has a layer (and a preview), by page number. `byDesign`: a page
 * of a file in the wrong order is drawn on the part its design belongs to (the report's
 * page-order-mismatch says which), not on the part in its position.
 * @example
 * const mockups = await layerMockups(report, previews, registry.resolve({ sku: 'T-SHIRT-M' }));
 */
export async function layerMockups(
  report: Pick<Report, 'pages' | 'findings' | 'limits'>,
  previews: ReadonlyMap<number, MockupPreview>,
  resolved: Pick<ResolvedTarget, 'layers' | 'profile'>,
  { byDesign = false, maxPx = MOCKUP_SIZE_PX }: { byDesign?: boolean; maxPx?: number } = {},
): Promise<Map<number, { bytes: Uint8Array; format: 'png'; widthPx: number; heightPx: number }>> {
  const designs = byDesign
    ? designsByPage(
        report.findings,
        resolved.layers.map((l) => l.id),
      )
    : new Map<number, string>();
  const out = new Map<number, { bytes: Uint8Array; format: 'png'; widthPx: number; heightPx: number }>();
  for (const page of report.pages) {
    const id = designs.get(page.index) ?? page.layer;
    const spec = id ? resolved.layers.find((l) => l.id === id) : undefined;
    const preview = previews.get(page.index);
    if (!spec || !preview) continue;
    const shape = resolved.profile.layers.find((l) => l.id === id)?.shape ?? DEFAULT_SHAPE;
    const layer: MockupLayer = { trimWidthMm: spec.trimWidthMm, trimHeightMm: spec.trimHeightMm, bleedMm: report.limits.bleedMm, safeMarginMm: spec.safeMarginMm ?? null, shape };
    const g = mockupGeometry(layer, maxPx);
    out.set(page.index, { bytes: await renderMockup(preview, layer, maxPx), format: 'png', widthPx: g.width, heightPx: g.height });
  }
  return out;
}
