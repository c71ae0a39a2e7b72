/**
 * pdf.js's renderer class, reached through a render task: pdf.js does not export it, and a few of
 * its methods are replaced once per process — blend modes through soft masks and non-isolated
 * groups (blend-groups.ts), and the system CJK face for text in fonts it has no glyphs for.
 */
import { patchBlendGroups, replaceMethod } from './blend-groups.js';
import { withCjkFallback } from './cjk-face.js';

let patched = false;

/**
 * Patches the renderer behind `task` (a pdf.js RenderTask, before its first operator runs).
 * `cjkFallback`: the system CJK face is registered (pdfjs.ts), and text pdf.js draws with the
 * canvas's own fonts takes the characters those lack from it.
 */
export function withGraphicsPatches(task: unknown, cjkFallback: boolean): void {
  if (patched) return;
  const internal = (task as { _internalRenderTask?: { initializeGraphics?: (...a: unknown[]) => void; gfx?: object } })._internalRenderTask;
  const init = internal?.initializeGraphics;
  if (!internal || typeof init !== 'function') return;
  internal.initializeGraphics = function (this: typeof internal, ...args: unknown[]) {
    init.apply(this, args);
    const proto = this.gfx && (Object.getPrototypeOf(this.gfx) as Record<string, unknown>);
    if (!proto || patched || !isRenderer(proto)) return;
    patched = true;
    patchBlendGroups(proto);
    if (cjkFallback) patchFonts(proto);
  };
}

function isRenderer(proto: Record<string, unknown>): boolean {
  return ['executeOperatorList', 'setGState', 'setFont', 'beginSMaskMode', 'composeSMask', 'genericComposeSMask', 'beginGroup', 'endGroup', 'restore', 'compose'].every(
    (m) => typeof proto[m] === 'function',
  );
}

interface FontSetter {
  ctx: { font: string };
  setFont(...args: unknown[]): void;
}

/**
 * pdf.js draws a font whose program is missing with the canvas's text (`ctx.font` names the
 * loaded font and a generic family, which have no CJK characters): the CJK face is appended to
 * the families, and the canvas takes from it only what the others lack.
 */
function patchFonts(proto: Record<string, unknown>): void {
  const setFont = proto.setFont as FontSetter['setFont'];
  replaceMethod(proto, 'setFont', function (this: FontSetter, ...args: unknown[]) {
    setFont.apply(this, args);
    this.ctx.font = withCjkFallback(this.ctx.font);
  });
}
