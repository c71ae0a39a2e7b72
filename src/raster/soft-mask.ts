/**
 * Soft masks for pdf.js in Node. pdf.js applies a luminosity soft mask (and an alpha mask with a
 * transfer function) through an SVG filter on the canvas (`ctx.filter = "url(#…)"`); in Node its
 * filter factory returns "none", so the mask's pixels are used as plain alpha: a luminosity mask
 * that is opaque everywhere leaves the masked content unmasked, or paints its black backdrop as a
 * black box. Here the filter is a marker, and the one `drawImage` pdf.js composes the mask with
 * converts the mask's pixels to alpha in JavaScript (ISO 32000-2 §11.5.2: luminosity
 * 0.3 R + 0.59 G + 0.11 B, then the transfer function), as the SVG filter would.
 */

type TransferMap = ArrayLike<number>;
interface MaskFilter {
  kind: 'alpha' | 'luminosity';
  map: TransferMap | null;
}

const PREFIX = 'url(#print-preflight-smask-';
const filters = new Map<string, MaskFilter>();

/** pdf.js's FilterFactory interface, with soft masks implemented for Node (the rest stays "none"). */
export class SoftMaskFilterFactory {
  addFilter(): string {
    return 'none';
  }

  addHCMFilter(): string {
    return 'none';
  }

  addHighlightHCMFilter(): string {
    return 'none';
  }

  addAlphaFilter(map: TransferMap | null): string {
    return register({ kind: 'alpha', map });
  }

  addLuminosityFilter(map: TransferMap | null): string {
    return register({ kind: 'luminosity', map });
  }

  destroy(): void {}
}

function register(filter: MaskFilter): string {
  // A few distinct masks per document; the key is stable so the table stays small.
  const key = `${PREFIX}${filter.kind}-${filter.map ? Array.from(filter.map).join('.') : 'identity'})`;
  if (!filters.has(key)) {
    if (filters.size > 1000) filters.clear();
    filters.set(key, filter);
  }
  return key;
}

interface Canvas2D {
  canvas: { width: number; height: number };
  filter: string;
  save(): void;
  restore(): void;
  drawImage(image: unknown, ...args: number[]): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  createImageData(w: number, h: number): { data: Uint8ClampedArray };
  putImageData(data: unknown, x: number, y: number): void;
}
interface CanvasEntry {
  canvas: unknown;
  context: Canvas2D;
}
interface CanvasFactory {
  create(width: number, height: number): CanvasEntry;
  destroy(entry: CanvasEntry): void;
}

/**
 * Makes every canvas context `factory` hands out understand the soft-mask filters above. Call it
 * on `doc.canvasFactory` before rendering.
 */
export function withSoftMasks(factory: CanvasFactory): void {
  const create = factory.create.bind(factory);
  factory.create = (width, height) => {
    const entry = create(width, height);
    return { canvas: entry.canvas, context: maskingContext(entry.context, factory) };
  };
}

function maskingContext(target: Canvas2D, factory: CanvasFactory): Canvas2D {
  // The mask filter set for the next drawImage: pdf.js sets it, composes the mask with one
  // drawImage, and restores the state. (pdf.js also patches save/restore on contexts it mirrors,
  // so only `filter` and that one drawImage are intercepted.)
  let current: MaskFilter | null = null;
  const bound = new Map<PropertyKey, { value: unknown; fn: unknown }>();
  const maskedDrawImage = (image: unknown, ...args: number[]) => {
    const filter = current!;
    current = null;
    if (args.length !== 8) return target.drawImage(image, ...args);
    const [sx, sy, sw, sh, dx, dy, dw, dh] = args as [number, number, number, number, number, number, number, number];
    const source = (image as { getContext(kind: '2d'): Canvas2D }).getContext('2d');
    const w = Math.max(1, Math.round(sw));
    const h = Math.max(1, Math.round(sh));
    const mask = toAlpha(source.getImageData(sx, sy, w, h).data, filter);
    const scratch = factory.create(w, h);
    try {
      const data = scratch.context.createImageData(w, h);
      data.data.set(mask);
      scratch.context.putImageData(data, 0, 0);
      target.drawImage(scratch.canvas, 0, 0, w, h, dx, dy, dw, dh);
    } finally {
      factory.destroy(scratch);
    }
  };
  return new Proxy(target, {
    get(t, prop) {
      if (current) {
        if (prop === 'drawImage') return maskedDrawImage;
        if (prop === 'filter') return 'none';
      }
      const value = Reflect.get(t, prop, t);
      if (typeof value !== 'function') return value;
      const hit = bound.get(prop);
      if (hit && hit.value === value) return hit.fn;
      const fn = (value as (...a: unknown[]) => unknown).bind(t);
      bound.set(prop, { value, fn });
      return fn;
    },
    set(t, prop, value) {
      if (prop === 'filter') {
        const mask = typeof value === 'string' ? filters.get(value) : undefined;
        current = mask ?? null;
        if (mask) return true;
      }
      return Reflect.set(t, prop, value, t);
    },
  });
}

/** RGBA mask pixels → black pixels whose alpha is the mask value. */
export function toAlpha(rgba: Uint8ClampedArray, filter: MaskFilter): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba.length);
  const map = filter.map;
  for (let i = 0; i < rgba.length; i += 4) {
    let v: number;
    if (filter.kind === 'luminosity') {
      // Where the mask group painted nothing, its backdrop shows (pdf.js fills it in beforehand).
      const a = rgba[i + 3]! / 255;
      v = Math.round((0.3 * rgba[i]! + 0.59 * rgba[i + 1]! + 0.11 * rgba[i + 2]!) * a);
    } else v = rgba[i + 3]!;
    out[i + 3] = map ? (map[v] ?? v) : v;
  }
  return out;
}
