/**
 * The content interpreter of the page scan: runs a content stream through the operator table
 * (scan-operators.ts) with its collectors, and follows what it draws — Form XObjects (recursively,
 * guarded against cycles by the `active` set and against depth), image XObjects to the image
 * collector. Patterns, glyph procedures and soft masks come back to it through `PageScan.runner`.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import type { Rect } from '../../model/geometry.js';
import { ContentLimitError, ContentSyntaxError } from '../lexer.js';
import { IDENTITY, multiply, transformedBox } from '../matrix.js';
import { clipBox } from '../marks.js';
import { PDFName, PDFRawStream, PDFRef, dictOf, get, getDict, getName, rectOf, refLabel, resolve } from '../objects.js';
import type { ContentRunner, PageScan } from './page-scan.js';
import { SCAN_HOOKS, SCAN_OPS, scanFrame, type Collectors } from './scan-operators.js';
import { matrixOf, type GState } from './state.js';
import { walkContent } from './walk.js';

export class ContentInterpreter implements ContentRunner {
  constructor(
    private readonly scan: PageScan,
    private readonly c: Collectors,
  ) {
    scan.runner = this;
  }

  /** Runs one content stream from the state `start`; a malformed stream is noted, and ends there. */
  run(bytes: Uint8Array, resources: PDFDict | undefined, start: GState, via: string[], active: Set<PDFObject>): void {
    const scan = this.scan;
    scan.budget.chargeInterpreted(bytes.length, via.length ? via.join(' › ') : 'page content');
    const frame = scanFrame(scan, this.c, bytes, resources, start, via, active);
    const lexer = { maxNesting: 256, maxOperands: 4096, maxTokenBytes: scan.budget.limits.maxTokenBytes, maxContainerItems: scan.budget.limits.maxContainerItems };
    try {
      walkContent(bytes, frame, SCAN_OPS, { ...SCAN_HOOKS, lexer });
    } catch (error) {
      if (!(error instanceof ContentSyntaxError)) throw error;
      scan.notes.add(`content stream is malformed: ${error.message}`);
      if (error instanceof ContentLimitError) scan.tooComplex = true;
    }
  }

  /** `Do`: an image to the image collector, a form run; hidden optional content is skipped. */
  doXObject(name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>) {
    const ctx = this.scan.context;
    const raw = this.scan.resource(resources, 'XObject', name);
    const ref = raw instanceof PDFRef ? raw : undefined;
    const xobj = resolve(ctx, raw);
    const dict = dictOf(xobj);
    if (!dict) {
      this.scan.notes.add(`XObject /${name} is missing`);
      return;
    }
    if (this.scan.hidden(dict.get(PDFName.of('OC')))) return;
    const subtype = getName(ctx, dict, 'Subtype');
    if (subtype === 'Image') {
      if (xobj instanceof PDFRawStream) this.c.images.info.streamOf.set(dict, xobj);
      this.c.images.addImage(dict, refLabel(ref), name, false, resources, gs, via, active, xobj);
      return;
    }
    if (subtype !== 'Form' || !xobj) return;
    this.runForm(xobj, name, resources, gs, via, active, true);
  }

  /**
   * Runs a Form XObject's content: `gs.ctm` is where the form is drawn, and the form's /Matrix
   * comes first. `named` forms are labelled /Name in notes; annotation appearances by their label.
   */
  runForm(xobj: PDFObject, name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>, named: boolean) {
    const ctx = this.scan.context;
    const dict = dictOf(xobj)!;
    const label = named ? `Form XObject /${name}` : name;
    if (active.has(xobj)) {
      this.scan.damage.add(`${label} draws itself, directly or through other forms (a cycle)`);
      return;
    }
    if (via.length >= this.scan.limits.maxFormDepth) {
      this.scan.tooComplex = true;
      this.scan.notes.add(`Form XObjects nested deeper than ${this.scan.limits.maxFormDepth}: not followed further`);
      return;
    }
    const data = this.scan.read(xobj, label);
    if (!data) return;
    const matrix = matrixOf(ctx, dict) ?? IDENTITY;
    const inner = getDict(ctx, dict, 'Resources') ?? resources;
    const ctm = multiply(matrix, gs.ctm);
    // A form is clipped to its /BBox.
    const bbox = rectOf(ctx, get(ctx, dict, 'BBox'));
    const clip = bbox ? (clipBox(transformedBox(ctm, bbox), gs.clip) ?? [0, 0, 0, 0]) : gs.clip;
    this.c.transparency.formGroup(getDict(ctx, dict, 'Group'), clip as Rect | null);
    active.add(xobj);
    this.run(data, inner, { ...gs, ctm, clip: clip as Rect | null }, [...via, name], active);
    active.delete(xobj);
  }
}
