/**
 * The one entrance of the pipeline: a source (a path, the bytes, or a URL to download the way the
 * order service will), a target, options — and, with `fix`, the policy's fixes made and the fixed
 * file checked again. The run is resolved once (flow/run.ts) and every step receives it: the
 * download, the check, the fix (in the pool) and the check of the fixed file. `preflight`,
 * `preflightUrl`, `checkAndFix` and `checkAndFixUrl` are this with fewer options.
 */
import { createHash } from 'node:crypto';
import type { CheckOptions, Target } from './options.js';
import type { Report } from '../report/schema.js';
import type { ChangeCode } from '../model/codes.js';
import { DEFAULT_APPROVAL, isFixable } from '../model/policy.js';
import { readSourceBytes } from '../source/read.js';
import { changeText, formatMegabytes } from '../messages/catalogue.js';
import { fixResolved, noteRemaining, parseFixOptions } from './fix.js';
import type { Change, Refusal } from '../model/change.js';
import { checkResolved, type Preview } from './check-file.js';
import type { StructureRead } from './structure-read.js';
import { resolveRun, type ResolvedRun } from './run.js';
import { assembleInPool, fillOf, isLayersSource, layerProblems, loadLayerInput, transparencyDrafts, type LayersSource } from './assembly.js';
import { InvalidArgumentError } from '../errors.js';
import { refuseLayerImages } from './layer-probe.js';
import { withFindings } from '../report/build.js';
import { profileRules, settle } from '../rules/index.js';
import { localizeReport } from '../messages/catalogue.js';
import type { AssembledLayer } from '../model/assembly.js';

/**
 * What to check: a file's path, its bytes, `{ url }` — downloaded as the order service would — or a
 * source per layer (`{ layers: { front: 'front.png', back: { url, fit: 'tile' } } }`), assembled into
 * the print file in the pool, which is then the check's fixed file.
 */
export type CheckSource = string | Uint8Array | { url: string } | LayersSource;

export type { CheckOptions };

/** One change, with what it means to the customer when a locale was asked for. */
export interface FlowChange extends Change {
  /** The customer's words for the change (`fixed` of the catalogue). */
  customer?: string;
  /** Whether this change waits for approval under `fix: 'approve'`. */
  needsApproval: boolean;
}

export interface FixedFile {
  bytes: Uint8Array;
  sha256: string;
  changes: FlowChange[];
  refused: Refusal[];
}

export interface CheckResult {
  /** `done`: use `report` (and the fixed file when there is one); `needs-approval`: a person approves the changes first. */
  status: 'done' | 'needs-approval';
  /** The report the file is judged by: the fixed file's when a fix was made, else the original's. */
  report: Report;
  previews: Map<number, Preview>;
  /** The original file's report and previews (the "before"). */
  before: Report;
  beforePreviews: Map<number, Preview>;
  /** The fixed file, or null when no fix was asked for, the policy fixes nothing in this file or no fix could be made. */
  fixed: FixedFile | null;
  /** With no fixed file: the fixes the policy asked for that could not be made, and why (a file over the limits, an image that cannot be decoded…). */
  refused?: Refusal[];
}

/**
 * Checks a file — and with `fix`, fixes what the policy says to fix and checks the fixed file again.
 * Every surface enters here: the library's `preflight`, `checkAndFix` and their URL forms, the
 * command line, batch, the hot folder, the service and the fleet (those that resolved the run
 * already, to use its target, through `checkRun`).
 * @param source a path, the file's bytes, `{ url }`, or `{ layers }` (an image or one-page PDF per layer id)
 * @throws {LayerImageError} with `{ layers }`: a layer's image over the product's `maxImagePixels` on a side (`ERR_LAYER_TOO_LARGE`), or one that cannot be decoded (`ERR_LAYER_UNREADABLE`) — probed before anything is assembled
 * @example
 * const out = await check({ url: 'https://cdn.example.com/a.pdf' }, { sku: 'T-SHIRT-M' }, { fix: 'approve', locale: 'pt' });
 * if (out.status === 'needs-approval') console.log(out.fixed?.changes.map((c) => c.customer));
 */
export async function check(source: CheckSource, target: Target, options: CheckOptions = {}): Promise<CheckResult> {
  return checkRun(source, await resolveRun(target, options));
}

/**
 * {@link check} under a run resolved once (flow/run.ts): nothing is parsed or looked up again.
 * @param structure the file's structure read, started before the run was resolved (the command
 *   line does, flow/structure-read.ts): the file's bytes are then the read's, and the read is taken
 *   over when it was started under the run's settings
 * @example
 * const run = await resolveRun({ sku: 'T-SHIRT-M' }, { raster: false });
 * const out = await checkRun(bytes, run);
 */
export async function checkRun(source: CheckSource, run: ResolvedRun, structure?: Promise<StructureRead>): Promise<CheckResult> {
  if (isLayersSource(source)) return checkLayers(run, source);
  if (typeof source === 'object' && !(source instanceof Uint8Array)) {
    // The download path (node:http, which Node 24 loads with undici) is imported only by a URL.
    const { downloadWith } = await import('./download.js');
    const got = await downloadWith(run, source.url);
    if (!got.ok) return { status: 'done', report: got.report, previews: new Map(), before: got.report, beforePreviews: new Map(), fixed: null };
    const out = await checkFile(run, got.bytes, source.url);
    const [report, before] = await Promise.all([got.finish(out.report), out.before === out.report ? null : got.finish(out.before)]);
    // A download finding that fails the file (a login page) leaves nothing to approve.
    const status = out.status === 'needs-approval' && report.verdict === 'fail' ? 'done' : out.status;
    return { ...out, status, report, before: before ?? report };
  }
  // The name the reports give the file: the one the caller gives, else the path it was read from.
  if (structure) return checkFile(run, (await structure).bytes, run.options.path ?? (typeof source === 'string' ? source : null), structure);
  const file = await readSourceBytes(source, run.options.path);
  return checkFile(run, file.bytes, file.path);
}

/**
 * A source per layer: each layer's image or one-page PDF read (or downloaded under the run's network
 * rules and file-size limit), assembled in the pool, and the print file checked — and fixed, with a
 * mode — like any file. The assembled file is the result's fixed file (its changes say how each
 * layer was made); with `fix: 'approve'` it waits for approval like any fix.
 */
async function checkLayers(run: ResolvedRun, source: LayersSource): Promise<CheckResult> {
  const { target: resolved, options } = run;
  const problems = layerProblems(Object.keys(source.layers), resolved.layers);
  if (problems.length) throw new InvalidArgumentError(`${resolved.profile.id} ${resolved.variant.id}: ${problems.map((p) => `layer ${p.path}: ${p.message}`).join('; ')}`);
  const inputs: { id: string; input: Uint8Array; fit?: AssembledLayer['fill'] }[] = [];
  const finishes: ((report: Report) => Promise<Report>)[] = [];
  for (const layer of resolved.layers) {
    const given = source.layers[layer.id]!;
    const spec = typeof given === 'string' || given instanceof Uint8Array ? { input: given } : given;
    const fit = fillOf(layer.id, spec.fit);
    let bytes: Uint8Array;
    if ('url' in spec) {
      const { downloadWith } = await import('./download.js');
      const got = await downloadWith(run, spec.url);
      // A layer that cannot be downloaded leaves nothing to assemble: the download's findings are the answer.
      if (!got.ok) return { status: 'done', report: got.report, previews: new Map(), before: got.report, beforePreviews: new Map(), fixed: null };
      bytes = got.bytes;
      finishes.push(got.finish);
    } else bytes = await loadLayerInput(spec.input);
    inputs.push({ id: layer.id, input: bytes, ...(fit ? { fit } : {}) });
  }
  // One rule on every surface: an image over the pixel limit, or one that cannot be decoded, is
  // refused naming its layer (probed in the pool) — never scaled down to the limit.
  await refuseLayerImages(
    run.executor,
    inputs.map((i) => ({ id: i.id, bytes: i.input })),
    run.limits.maxImagePixels,
    options.signal,
  );
  const made = await assembleInPool({ executor: run.executor, decodeLimits: run.decodeLimits, layers: resolved.layers, limits: run.limits }, inputs, {}, options);
  const path = options.path ?? `${resolved.profile.id}-${resolved.variant.id}.pdf`;
  const out = await checkFile(run, made.bytes, path);
  // What only the images knew (transparent areas), and how each layer was made, on every report of the run.
  const drafts = transparencyDrafts(made.layers, resolved.layers, resolved.profile.name);
  const findings = settle(drafts, profileRules(resolved.profile, options.defaultPolicy), { severities: options.severities, policy: options.policy }, { tightenOnly: options.tightenOnly });
  const said = async (report: Report) => {
    let r = findings.length ? withFindings(report, findings) : report;
    if (findings.length && options.locale) r = await localizeReport(r, resolved.profile, options.locale);
    for (const finish of finishes) r = await finish(r);
    return { ...r, assembly: { layers: made.layers } };
  };
  const report = await said(out.report);
  const before = out.before === out.report ? report : await said(out.before);
  const assembled: FlowChange[] = await Promise.all(
    made.changes.map(async (action) => {
      const change = { code: 'layers-assembled' as const, page: null, action: `assembled ${action}`, needsApproval: true };
      if (!options.locale) return change;
      return { ...change, customer: await changeText(change, { before, after: report }, resolved.profile, options.locale) };
    }),
  );
  const bytes = out.fixed?.bytes ?? made.bytes;
  const fixed: FixedFile = {
    bytes,
    sha256: out.fixed?.sha256 ?? createHash('sha256').update(bytes).digest('hex'),
    changes: [...assembled, ...(out.fixed?.changes ?? [])],
    refused: out.fixed?.refused ?? out.refused ?? [],
  };
  // Images made into a print file are a change the customer sees first when the mode asks for approval.
  const status = options.fix === 'approve' && report.verdict !== 'fail' ? 'needs-approval' : 'done';
  return { status, report, previews: out.previews, before, beforePreviews: out.beforePreviews, fixed };
}

/** Check, then (with a mode) fix and check again. */
async function checkFile(run: ResolvedRun, bytes: Uint8Array, path: string | null, structure?: Promise<StructureRead>): Promise<CheckResult> {
  const { fix: mode, rotate, fit, fixedPath, keepPreviews, instructions } = run.options;
  const first = await checkResolved(run, bytes, { path, keepPreviews, structure });
  const unchanged: CheckResult = { status: 'done', report: first.report, previews: first.previews, before: first.report, beforePreviews: first.previews, fixed: null };
  if (!mode) return unchanged;
  const codes = [...new Set(first.report.findings.filter((f) => f.action === 'fix' && isFixable(f.code)).map((f) => f.code))];
  if (!codes.length) return unchanged;
  // This flow asks for approval itself (status needs-approval): every fix the policy names is made.
  const fixOptions = parseFixOptions({ ...(rotate ? { rotate } : {}), ...(fit ? { fit } : {}), codes, approve: 'all', recheck: false, instructions });
  const made = await fixResolved(run, bytes, first.report, fixOptions, path);
  // No fixed file: the fixes the policy asked for and why each was not made stay with the result.
  if (!made.bytes) return { ...unchanged, ...(made.refused.length ? { refused: made.refused } : {}) };
  // The fixed file's report names it as the fixed file (its checksum is the fixed file's).
  const after = await checkResolved(run, made.bytes, { path: fixedPath ?? fixedFileName(path), keepPreviews });
  const refused = [...made.refused];
  noteRemaining(made.changes, refused, after.report);
  const { profile } = run.target;
  const locale = run.options.locale;
  const approval = new Set<ChangeCode>(profile.approval ?? DEFAULT_APPROVAL);
  const changes: FlowChange[] = await Promise.all(
    made.changes.map(async (change) => {
      const needsApproval = approval.has(change.code);
      if (!locale) return { ...change, needsApproval };
      // A change's page is a page of the fixed file: its layer is that page's, the finding behind it the original page's that became it.
      const customer = await changeText(change, { before: first.report, after: after.report }, profile, locale, { size: formatMegabytes(made.bytes!.length, locale) });
      return { ...change, needsApproval, customer };
    }),
  );
  const sha256 = createHash('sha256').update(made.bytes).digest('hex');
  // A fixed file that still fails is not put to anyone: there is nothing to approve.
  const status = mode === 'approve' && after.report.verdict !== 'fail' && changes.some((c) => c.needsApproval) ? 'needs-approval' : 'done';
  return { status, report: after.report, previews: after.previews, before: first.report, beforePreviews: first.previews, fixed: { bytes: made.bytes, sha256, changes, refused } };
}

/**
 * The name of a fixed file, for its report: the input's name with `.fixed` before `.pdf`
 * (`order-12/design.pdf` → `order-12/design.fixed.pdf`; a URL gives its last segment, as the
 * fixed file is served elsewhere). Null stays null (bytes from memory).
 * @example
 * fixedFileName('apparel.pdf'); // 'apparel.fixed.pdf'
 */
export function fixedFileName(path: string | null): string | null {
  if (path === null) return null;
  let name = path;
  if (/^https?:\/\//i.test(path)) {
    try {
      name = decodeURIComponent(new URL(path).pathname.split('/').pop() ?? '') || 'download.pdf';
    } catch {
      name = 'download.pdf';
    }
  }
  return /\.pdf$/i.test(name) ? name.replace(/\.pdf$/i, '.fixed.pdf') : `${name}.fixed.pdf`;
}
