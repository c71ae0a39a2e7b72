/**
 * Blend modes through soft masks and inside non-isolated groups, for pdf.js 5.6 (ISO 32000-2
 * §11.4.7, §11.6.5). pdf.js draws an object painted through a soft mask onto a scratch canvas and
 * composes it onto the page with Normal whatever the blend mode, and draws every transparency
 * group as if isolated, so a blend mode inside a non-isolated group sees nothing behind it.
 * Illustrator's glossy highlights are both (pdf.js issue13520.pdf: a Screen group through a
 * luminosity mask, and a masked group whose shapes are Screen inside): a dark shading meant to
 * lighten the artwork came out as a dark blob where poppler, MuPDF and Ghostscript draw a faint
 * highlight. pdf.js keeps its renderer class to itself; its prototype is reached through the
 * first render task (pdfjs-graphics.ts), and six of its methods are replaced:
 * - the blend mode a PDF graphics state sets is kept in the state (pdf.js's own switch to Normal
 *   when it enters soft-mask mode is not a PDF state), and a masked object is composed with it;
 * - a non-isolated group composed with Normal whose content sets another blend mode (looked up in
 *   the operator list being run) starts from a copy of what lies behind it, and its result
 *   replaces that backdrop in proportion to the group's alpha, as the spec's compositing formula
 *   for a non-isolated group does (a group through a soft mask is composed by the mask). With
 *   Normal content alone both ways compose the same, and the copy is spared.
 * Groups composed with another blend mode stay isolated, as pdf.js draws them: a copied backdrop
 * would be blended with itself.
 */

type Matrix = [number, number, number, number, number, number];

interface Ctx {
  canvas: { width: number; height: number };
  globalAlpha: number;
  globalCompositeOperation: string;
  fillStyle: unknown;
  imageSmoothingEnabled: boolean;
  save(): void;
  restore(): void;
  setTransform(...m: number[]): void;
  getTransform(): { a: number; b: number; c: number; d: number; e: number; f: number };
  drawImage(image: unknown, ...args: number[]): void;
  createImageData(w: number, h: number): { data: Uint8ClampedArray };
  fillRect(x: number, y: number, w: number, h: number): void;
  getImageData(x: number, y: number, w: number, h: number): unknown;
  putImageData(data: unknown, x: number, y: number): void;
}

interface State {
  activeSMask: unknown;
  /** The blend mode the PDF's graphics state asks for (pdf.js's canvas operation name). */
  pdfBlend?: string;
  clone(): State;
}

interface Group {
  isolated?: boolean;
  knockout?: boolean;
  smask?: unknown;
}

interface Graphics {
  ctx: Ctx;
  current: State;
  stateStack: State[];
  groupStack: Ctx[];
  groupLevel: number;
  contentVisible: boolean;
  inSMaskMode: boolean;
  canvasFactory: { create(width: number, height: number): { canvas: unknown; context: Ctx }; destroy(entry: { canvas: unknown; context: unknown }): void };
  dependencyTracker?: { popBaseTransform(): void } | null;
  setGState(opIdx: number, states: [string, unknown][]): void;
  beginSMaskMode(opIdx?: number): void;
  genericComposeSMask(...args: unknown[]): void;
  composeSMask(ctx: Ctx, smask: SMask, layerCtx: Ctx, layerBox: number[]): void;
  beginGroup(opIdx: number, group: Group): void;
  endGroup(opIdx: number, group: Group): void;
  restore(opIdx: number): void;
  compose(dirtyBox?: number[]): void;
  executeOperatorList(list: OperatorList, ...rest: unknown[]): unknown;
  /** The operator list being run (set by the patch). */
  opList?: OperatorList;
}

interface OperatorList {
  fnArray: ArrayLike<number>;
  argsArray: ArrayLike<unknown[] | null>;
}

/**
 * Whether the group beginning at operator `at` sets a blend mode other than Normal before it ends
 * (in groups nested in it too). True when the list is not known.
 */
function blendsInside(list: OperatorList | undefined, at: number, ops: { setGState: number; beginGroup: number; endGroup: number }): boolean {
  if (!list || list.fnArray[at] !== ops.beginGroup) return true;
  let depth = 0;
  for (let i = at; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    if (fn === ops.beginGroup) depth++;
    else if (fn === ops.endGroup && --depth === 0) return false;
    else if (fn === ops.setGState) {
      const states = list.argsArray[i]?.[0];
      if (Array.isArray(states) && states.some((s) => Array.isArray(s) && s[0] === 'BM' && s[1] !== NORMAL)) return true;
    }
  }
  return true;
}

interface SMask {
  context: Ctx;
  subtype: string;
  backdrop: unknown;
  transferMap: unknown;
  offsetX: number;
  offsetY: number;
}

/** Group canvases that start from a copy of their backdrop. */
const backdropGroups = new WeakSet<Ctx>();

const NORMAL = 'source-over';

/**
 * Replaces `proto[name]`, and the operator-number aliases pdf.js dispatches operators through
 * (`proto[OPS.setGState] === proto.setGState`), with `fn`.
 */
export function replaceMethod(proto: object, name: string, fn: unknown): void {
  const table = proto as Record<string, unknown>;
  const original = table[name];
  for (const key of Object.keys(table)) if (/^\d+$/.test(key) && table[key] === original) table[key] = fn;
  table[name] = fn;
}

function replace<K extends keyof Graphics>(proto: Graphics, name: K, fn: Graphics[K]): void {
  replaceMethod(proto, name, fn);
}

/** Patches pdf.js's renderer class (its prototype, reached by pdfjs-graphics.ts) as the header says. */
export function patchBlendGroups(proto: object): void {
  patchGraphics(proto as Graphics);
}

function patchGraphics(proto: Graphics): void {
  // The operator numbers pdf.js dispatches by (its OPS table), found by the methods they alias.
  const table = proto as unknown as Record<string, unknown>;
  const opOf = (name: string) => Number(Object.keys(table).find((k) => /^\d+$/.test(k) && table[k] === table[name]) ?? Number.NaN);
  const ops = { setGState: opOf('setGState'), beginGroup: opOf('beginGroup'), endGroup: opOf('endGroup') };

  // The operator list being run, for a look ahead into a group's content.
  const execute = proto.executeOperatorList;
  replace(proto, 'executeOperatorList', function (this: Graphics, list: OperatorList, ...rest: unknown[]) {
    const outer = this.opList;
    this.opList = list;
    try {
      return execute.call(this, list, ...rest);
    } finally {
      this.opList = outer;
    }
  });

  const setGState = proto.setGState;
  replace(proto, 'setGState', function (this: Graphics, opIdx, states) {
    setGState.call(this, opIdx, states);
    for (const [key, value] of states) if (key === 'BM' && typeof value === 'string') this.current.pdfBlend = value;
  });

  // Entering soft-mask mode sets Normal on pdf.js's scratch canvas: not the PDF's blend mode.
  const beginSMaskMode = proto.beginSMaskMode;
  replace(proto, 'beginSMaskMode', function (this: Graphics, opIdx) {
    const blend = this.current.pdfBlend;
    beginSMaskMode.call(this, opIdx);
    this.current.pdfBlend = blend;
  });

  // pdf.js's composeSMask, with the object's blend mode instead of Normal.
  replace(proto, 'composeSMask', function (this: Graphics, ctx, smask, layerCtx, layerBox) {
    const [x0, y0, x1, y1] = layerBox as [number, number, number, number];
    if (x1 - x0 === 0 || y1 - y0 === 0) return;
    this.genericComposeSMask(smask.context, layerCtx, x1 - x0, y1 - y0, smask.subtype, smask.backdrop, smask.transferMap, x0, y0, smask.offsetX, smask.offsetY);
    ctx.save();
    ctx.globalAlpha = 1;
    ctx.globalCompositeOperation = this.current.pdfBlend ?? NORMAL;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(layerCtx.canvas, 0, 0);
    ctx.restore();
  });

  const beginGroup = proto.beginGroup;
  replace(proto, 'beginGroup', function (this: Graphics, opIdx, group) {
    const level = this.groupLevel;
    beginGroup.call(this, opIdx, group);
    if (this.groupLevel === level || group.isolated || group.knockout || group.smask) return;
    // The state the group is painted with: pdf.js saved it before starting the group.
    const outer = this.stateStack.at(-1);
    if ((outer?.pdfBlend ?? NORMAL) !== NORMAL) return;
    // A group whose content paints with Normal only composes the same whether isolated or not:
    // the copy (a buffer the group's size, ~40 ms a page-sized group) only where a blend needs it.
    if (!blendsInside(this.opList, opIdx, ops)) return;
    const parent = this.groupStack.at(-1);
    if (!parent) return;
    // beginGroup left the parent translated to the group canvas's corner, in device pixels.
    const { e, f } = parent.getTransform();
    const { width, height } = this.ctx.canvas;
    // putImageData ignores the group's clip and transform: the whole canvas gets its backdrop.
    this.ctx.putImageData(parent.getImageData(Math.round(e), Math.round(f), width, height), 0, 0);
    backdropGroups.add(this.ctx);
  });

  const endGroup = proto.endGroup;
  replace(proto, 'endGroup', function (this: Graphics, opIdx, group) {
    if (!this.contentVisible || !backdropGroups.has(this.ctx)) return endGroup.call(this, opIdx, group);
    // pdf.js's endGroup for a group without a soft mask of its own, composing its result over the
    // backdrop it started from: (1 − α) · backdrop + α · result.
    this.groupLevel--;
    const groupCtx = this.ctx;
    backdropGroups.delete(groupCtx);
    const ctx = this.groupStack.pop()!;
    this.ctx = ctx;
    ctx.imageSmoothingEnabled = false;
    this.dependencyTracker?.popBaseTransform();
    ctx.restore();
    const m = ctx.getTransform();
    const matrix: Matrix = [m.a, m.b, m.c, m.d, m.e, m.f];
    this.restore(opIdx);
    // Restoring may have entered soft-mask mode: this.ctx is then an empty scratch canvas, and the mask composes.
    const target = this.ctx;
    target.save();
    target.setTransform(...matrix);
    const { width, height } = groupCtx.canvas;
    if (this.inSMaskMode) target.drawImage(groupCtx.canvas, 0, 0);
    else {
      // The backdrop is first reduced by the group's alpha through one pixel of that alpha drawn
      // over the group's area: the canvas library squares a constant alpha (globalAlpha or a fill
      // colour's) in destination-out, not a pixel's.
      const alpha = target.globalAlpha;
      const dot = this.canvasFactory.create(1, 1);
      try {
        const pixel = dot.context.createImageData(1, 1);
        pixel.data.set([0, 0, 0, Math.round(255 * alpha)]);
        dot.context.putImageData(pixel, 0, 0);
        target.globalAlpha = 1;
        target.globalCompositeOperation = 'destination-out';
        target.drawImage(dot.canvas, 0, 0, 1, 1, 0, 0, width, height);
      } finally {
        this.canvasFactory.destroy(dot);
      }
      target.globalCompositeOperation = 'lighter';
      target.globalAlpha = alpha;
      target.drawImage(groupCtx.canvas, 0, 0);
    }
    target.restore();
    this.canvasFactory.destroy({ canvas: groupCtx.canvas, context: groupCtx });
    const [a, b, c, d, e, f] = matrix;
    const xs = [e, a * width + e, c * height + e, a * width + c * height + e];
    const ys = [f, b * width + f, d * height + f, b * width + d * height + f];
    this.compose([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
  });
}
