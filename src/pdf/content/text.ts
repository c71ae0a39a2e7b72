/**
 * The text collector: where text-showing operators paint (their runs' boxes through the text
 * matrix and CTM, merged along a line), how far each run advances the text matrix, and how many
 * glyphs it draws — from the font's metrics, read once per font per page.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import type { TextMark } from '../facts.js';
import type { Matrix, Rect } from '../../model/geometry.js';
import { multiply, transformedBox } from '../matrix.js';
import { clipBox } from '../marks.js';
import { PDFName, dictOf, resolve } from '../objects.js';
import { fontMetrics, showOperands, type FontMetrics } from '../text-metrics.js';
import type { PageScan } from './page-scan.js';
import type { GState } from './state.js';

export class TextCollector {
  private readonly metrics = new Map<PDFObject, FontMetrics>();
  private lastMetrics: { key: GState['font'] | null; metrics: FontMetrics | undefined } = { key: null, metrics: undefined };

  constructor(private readonly scan: PageScan) {}

  /**
   * A text-showing operator's run: its advance in text space (to move the text matrix) and its
   * mark — the glyph boxes through the text matrix and CTM, the em height, ASCII text when the
   * font's codes are ASCII. Invisible text (Tr 3 and 7) advances without a mark.
   */
  showText(bytes: Uint8Array, start: number, end: number, gs: GState, tm: Matrix): { advance: number; mark: TextMark | null; glyphs: number; box: Rect | null } | null {
    if (!gs.font) return null;
    let metrics: FontMetrics;
    if (this.lastMetrics.key === gs.font) metrics = this.lastMetrics.metrics!;
    else {
      metrics = this.fontMetricsOf(gs.font.name, gs.font.resources);
      this.lastMetrics = { key: gs.font, metrics };
    }
    const size = gs.fontSize;
    const th = gs.hScale;
    let x = 0;
    let minX = 0;
    let maxX = 0;
    let text = '';
    let glyphs = 0;
    let paints = false; // a run of spaces paints nothing: no mark
    for (const item of showOperands(bytes, start, end)) {
      if (typeof item === 'number') {
        x -= (item / 1000) * size * th;
      } else {
        const n = metrics.codeBytes;
        glyphs += Math.floor(item.length / n);
        for (let i = 0; i + n - 1 < item.length; i += n) {
          const code = n === 2 ? (item[i]! << 8) | item[i + 1]! : item[i]!;
          x += (metrics.advance(code) * size + gs.charSpacing + (n === 1 && code === 32 ? gs.wordSpacing : 0)) * th;
          paints ||= !metrics.blank(code);
          if (metrics.ascii && text.length < 60) text += code >= 32 && code < 127 ? String.fromCharCode(code) : '';
        }
      }
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
    }
    if (!paints || maxX - minX <= 0 || size === 0) return { advance: x, mark: null, glyphs, box: null };
    const m = multiply(tm, gs.ctm);
    const y0 = gs.rise + metrics.descent * size;
    const y1 = gs.rise + metrics.ascent * size;
    const box = clipBox(transformedBox(m, [minX, Math.min(y0, y1), maxX, Math.max(y0, y1)]), gs.clip);
    // Invisible text (Tr 3, 7) is still laid out, glyph by glyph, but paints nothing and marks nothing.
    if (gs.textRender === 3 || gs.textRender === 7) return { advance: x, mark: null, glyphs, box: null };
    const sizePt = Math.abs(size) * metrics.em * Math.hypot(m[2], m[3]) * this.scan.userUnit;
    return { advance: x, mark: box && Number.isFinite(sizePt) ? { box, sizePt, text: text.trim() } : null, glyphs, box };
  }

  /** Adds a text run, or extends the previous run of the same line and size. */
  addText(mark: TextMark, last: TextMark | null): TextMark {
    if (last && Math.abs(last.sizePt - mark.sizePt) <= 0.01 * mark.sizePt) {
      const em = (mark.sizePt / this.scan.userUnit) * 1.2;
      const sameLine = Math.abs(last.box[1] - mark.box[1]) < 0.2 * em && Math.abs(last.box[3] - mark.box[3]) < 0.2 * em;
      if (sameLine && mark.box[0] <= last.box[2] + em && mark.box[2] >= last.box[0] - em) {
        last.box = [Math.min(last.box[0], mark.box[0]), Math.min(last.box[1], mark.box[1]), Math.max(last.box[2], mark.box[2]), Math.max(last.box[3], mark.box[3])];
        if (last.text.length < 60 && mark.text) last.text = `${last.text}${last.text ? ' ' : ''}${mark.text}`.slice(0, 60);
        return last;
      }
    }
    this.scan.marks.text(mark);
    return mark;
  }

  private fontMetricsOf(name: string, resources: PDFDict | undefined): FontMetrics {
    const font = resolve(this.scan.context, this.scan.resource(resources, 'Font', name));
    const key = font ?? PDFName.of(`missing ${name}`);
    let m = this.metrics.get(key);
    if (!m) {
      m = fontMetrics(this.scan.context, dictOf(font), (s) => this.scan.readStream(s, { maxBytes: 1 << 20, what: 'a font’s /ToUnicode map' }));
      this.metrics.set(key, m);
    }
    return m;
  }
}
