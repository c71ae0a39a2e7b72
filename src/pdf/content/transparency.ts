/**
 * The transparency collector: the ExtGState parts that decide what prints (alpha, line width,
 * dash, soft mask, blend mode), the blend modes and knockout groups the page uses, and what the
 * renderer is given with them — transfer functions, and soft-mask groups, which it draws in full
 * (screened like page content) and again for every object painted through them.
 */
import type { PDFDict, PDFObject } from 'pdf-lib';
import type { Rect } from '../../model/geometry.js';
import { PDFArray, PDFName, PDFRawStream, dictOf, get, getBool, getName, getNumber, items, nameOf, numberOf, resolve } from '../objects.js';
import type { PageScan } from './page-scan.js';
import { dashPeriod, type GState } from './state.js';

/** Blend modes that are plain painting (ISO 32000-2 §11.3.5). */
const NORMAL_BLEND = new Set(['Normal', 'Compatible']);

export class TransparencyCollector {
  readonly blendModes = new Set<string>();
  knockoutGroups = 0;
  /** What drawing each soft-mask group costs a renderer, measured when it is screened. */
  private readonly maskMicros = new Map<PDFObject, number>();

  constructor(private readonly scan: PageScan) {}

  /** A Form XObject's /Group: a knockout group is counted, a transparency group costs the renderer a buffer over `clip`. */
  formGroup(group: PDFDict | undefined, clip: Rect | null): void {
    const ctx = this.scan.context;
    if (getBool(ctx, group, 'K') === true) this.knockoutGroups++;
    if (getName(ctx, group, 'S') === 'Transparency') this.scan.cost.group(clip, null);
  }

  /** The parts of an ExtGState that decide what prints: alpha, line width, blend mode. */
  extGState(dict: PDFDict | undefined, gs: GState) {
    if (!dict) return;
    const ctx = this.scan.context;
    const ca = getNumber(ctx, dict, 'ca');
    const CA = getNumber(ctx, dict, 'CA');
    const lw = getNumber(ctx, dict, 'LW');
    if (ca !== undefined) gs.fillAlpha = ca;
    if (CA !== undefined) gs.strokeAlpha = CA;
    if (lw !== undefined && lw >= 0) gs.lineWidth = lw;
    const dash = get(ctx, dict, 'D');
    if (dash instanceof PDFArray) {
      const pattern = resolve(ctx, dash.get(0));
      gs.dashPeriod = dashPeriod(pattern instanceof PDFArray ? items(ctx, pattern).map((v) => numberOf(v) ?? Number.NaN) : undefined);
    }
    const smask = resolve(ctx, dict.get(PDFName.of('SMask')));
    if (smask !== undefined) {
      gs.masked = nameOf(smask) !== 'None';
      if (!gs.masked) gs.maskMicros = 0;
    }
    const bm = resolve(ctx, dict.get(PDFName.of('BM')));
    // An array names modes in order of preference; readers use the first they know.
    const mode = bm instanceof PDFArray ? nameOf(resolve(ctx, bm.get(0))) : nameOf(bm);
    if (mode && !NORMAL_BLEND.has(mode)) this.blendModes.add(mode);
  }

  /**
   * An ExtGState a renderer applies: its transfer functions, and its soft mask — a group the
   * renderer draws in full, so what it draws is screened like page content (nothing recorded).
   */
  screenExtGState(name: string, resources: PDFDict | undefined, gs: GState, via: string[], active: Set<PDFObject>) {
    const ctx = this.scan.context;
    const dict = dictOf(resolve(ctx, this.scan.resource(resources, 'ExtGState', name)));
    if (!dict) return;
    for (const key of ['TR', 'TR2']) {
      const reason = this.scan.screen.func(get(ctx, dict, key), `the transfer function of graphics state /${name}`);
      if (reason) this.scan.refuse(reason);
    }
    const smask = dictOf(get(ctx, dict, 'SMask'));
    if (!smask) return;
    const reason = this.scan.screen.func(get(ctx, smask, 'TR'), `the soft mask transfer function of graphics state /${name}`);
    if (reason) this.scan.refuse(reason);
    const group = resolve(ctx, smask.get(PDFName.of('G')));
    if (!(group instanceof PDFRawStream)) return;
    if (!this.scan.screened.has(group)) {
      this.scan.screened.add(group);
      const before = this.scan.cost.micros;
      this.scan.screenRun(() => this.scan.runner.runForm(group, `the soft mask of graphics state /${name}`, resources, gs, via, active, false));
      this.maskMicros.set(group, this.scan.cost.micros - before);
    }
    // pdf.js draws the page through a buffer of its own from here; every object painted through
    // the mask has it drawn again (3,000 fills through a mask of 200 took both engines minutes).
    this.scan.cost.group(gs.clip, null);
    gs.maskMicros = this.maskMicros.get(group) ?? 0;
  }
}
