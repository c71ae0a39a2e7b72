/**
 * A submission to POST /v1/checks read into a check job: a multipart upload (the PDF as `file`, or
 * one image per layer as `layer.<id>` parts, each streamed to the scratch folder within the limits)
 * or a JSON body (`url`, or `layers` by URL), its target, policy and callback judged before the job
 * is written.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { resolvedCallbackUrlProblem } from '../../jobs/callback.js';
import { CheckJobSchema, type CheckOptionsSchema, LayerIdSchema, newRecord, type CheckJob, type CheckSource } from '../../jobs/schema.js';
import { AssemblyFillSchema, type AssemblyFill } from '../../model/assembly.js';
import { layerProblems } from '../../flow/assembly.js';
import { loosenings } from '../../profile/tighten.js';
import type { Profile } from '../../profile/schema.js';
import { Problem, zodFields } from '../problem.js';
import { CheckFormSchema, CheckUrlBodySchema, targetOf } from '../schemas.js';
import type { ServiceContext } from '../context.js';
import type { Caller } from '../tenants.js';
import { grouped, withoutFormatControls } from '../../util/text.js';
import type { Policy } from '../../model/policy.js';
import { policyLoosenings } from '../../rules/settle.js';
import { profileRules } from '../../rules/index.js';
import { defaultPool } from '../../pool/pool.js';
import { layerGuard, layerImageProblem, MAX_LAYER_PARTS, type LayerKind } from './layer-parts.js';

const newId = () => randomUUID().replaceAll('-', '');

/**
 * A file name fit to show in a report: the last path segment, without control or format characters
 * (a U+202E in `invoice\u202Efdp.exe` would show it as "invoiceexe.pdf"), at most 255 characters.
 */
export function cleanName(name: string | undefined): string {
  const base = withoutFormatControls(
    (name ?? '')
      .split(/[\\/]/)
      .pop()!
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ''),
  ).trim();
  return (base || 'upload.pdf').slice(0, 255);
}

/**
 * Reads a multipart submission, streaming the file — or, with `layers`, each `layer.<id>` part — to
 * disk within the size limit (per part and for the request as a whole).
 */
export async function acceptUpload(ctx: ServiceContext, request: FastifyRequest, caller: Caller, how: { layers: boolean } = { layers: false }): Promise<CheckJob> {
  const id = newId();
  const temp = ctx.store.uploadTemp(id);
  const fields: Record<string, string> = {};
  const fits: Record<string, string> = {};
  /** Layer parts by layer id: where each streamed to, the name the client gave it, and its kind. */
  const layers = new Map<string, { temp: string; name: string; kind: LayerKind | null }>();
  const counted = { bytes: 0 };
  const limit = ctx.options.maxUploadBytes;
  let name: string | null = null;
  let known: ReturnType<typeof targetOrThrow> | null = null;
  const invalid = (path: string, message: string, detail: string) => new Problem('request-invalid', detail, { errors: [{ path, message }] });
  try {
    const max = how.layers ? MAX_LAYER_PARTS : 1;
    const parts = request.parts({ limits: { fileSize: limit, files: max, fields: 8 + max, fieldSize: 8192, parts: 10 + 2 * max } });
    for await (const part of formParts(parts)) {
      const layerPart = how.layers ? /^layer\.(.*)$/s.exec(part.fieldname) : null;
      if (part.type === 'file') {
        try {
          if (part.fieldname !== 'file' && !layerPart) {
            throw invalid(
              part.fieldname,
              how.layers ? 'unknown file part; name it "file" (a PDF) or "layer.<layer id>" (an image per layer)' : 'unknown file part; name it "file"',
              how.layers
                ? `Unknown file part "${part.fieldname}": send the PDF as the part named "file", or each layer's image as a part named "layer.<layer id>".`
                : `Unknown file part "${part.fieldname}": send the PDF as the part named "file".`,
            );
          }
          // Fields sent before the file (curl -F sku=… -F file=@…) are judged before a byte is stored.
          const early = targetOf(fields);
          if (early.ok) known ??= targetOrThrow(ctx, early.target);
          // At the limit the stream is destroyed at once: the 413 goes out while the client is still
          // sending, and nothing more is read or kept.
          part.file.once('limit', () => part.file.destroy(tooLarge(limit)));
          if (layerPart) {
            const layer = layerPart[1]!;
            if (name !== null || layers.has(layer) || !LayerIdSchema.safeParse(layer).success) {
              throw invalid(
                part.fieldname,
                name !== null
                  ? 'a file part is given too: send either "file" or the layer parts'
                  : layers.has(layer)
                    ? 'given more than once'
                    : 'not a layer id (lower-case letters, digits and hyphens)',
                name !== null ? `Both "file" and "${part.fieldname}" are given: send either the PDF or one image per layer.` : `The part "${part.fieldname}" cannot be used.`,
              );
            }
            if (known && !known.resolved.layers.some((l) => l.id === layer)) throw unknownLayer(part.fieldname, known.resolved.layers);
            const to = ctx.store.layerUploadTemp(id, layer);
            const stored = { temp: to, name: cleanName(part.filename), kind: null as LayerKind | null };
            layers.set(layer, stored);
            const guard = layerGuard(part.fieldname, counted, limit, () => tooLarge(limit));
            await pipeline(part.file, guard, createWriteStream(to, { flags: 'wx' })).catch((error: unknown) => {
              throw formError(error);
            });
            if (guard.problem) throw guard.problem;
            stored.kind = guard.kind;
          } else {
            if (layers.size)
              throw invalid('file', 'layer parts are given too: send either "file" or the layer parts', `Both "file" and "layer.*" parts are given: send either the PDF or one image per layer.`);
            if (name !== null) throw invalid('file', 'given more than once', 'The part "file" is given twice.');
            name = cleanName(part.filename);
            await pipeline(part.file, createWriteStream(temp, { flags: 'wx' })).catch((error: unknown) => {
              throw formError(error);
            });
          }
        } catch (error) {
          // A part refused before it is read is still read to its end (and dropped): the multipart
          // reader must go on for the answer to go out at once.
          if (!part.file.destroyed) part.file.resume();
          throw error;
        }
      } else {
        const fit = how.layers ? /^fit\.(.+)$/s.exec(part.fieldname) : null;
        const into = fit ? fits : fields;
        const key = fit ? fit[1]! : part.fieldname;
        if (Object.hasOwn(into, key)) throw invalid(part.fieldname, 'given more than once', `The field "${part.fieldname}" is given twice.`);
        into[key] = String(part.value);
      }
    }
    const form = CheckFormSchema.safeParse(fields);
    const errors = form.success ? [] : zodFields(form.error);
    if (name === null && !layers.size) {
      errors.push(
        how.layers
          ? { path: 'file', message: 'a part named "file" with the PDF, or a part "layer.<layer id>" per layer, is required' }
          : { path: 'file', message: 'a part named "file" with the PDF is required' },
      );
    }
    for (const [layer, value] of Object.entries(fits)) {
      if (!layers.has(layer)) errors.push({ path: `fit.${layer}`, message: `no part "layer.${layer}" to fill` });
      else if (!AssemblyFillSchema.safeParse(value).success) errors.push({ path: `fit.${layer}`, message: `must be one of ${AssemblyFillSchema.options.join(', ')}` });
    }
    if (!form.success || errors.length) throw new Problem('request-invalid', `The form is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
    // The target judged before the file is the one the form names (a field is never given twice): not looked up again.
    const { target, resolved } = known ?? targetOrThrow(ctx, form.data);
    if (layers.size) {
      const problems = layerProblems([...layers.keys()], resolved.layers).map((p) => ({ path: `layer.${p.path}`, message: p.message }));
      if (problems.length) {
        throw new Problem('request-invalid', `${resolved.profile.id} ${resolved.variant.id} takes one image per layer: ${problems.map((e) => `${e.path}: ${e.message}`).join('; ')}`, {
          errors: problems,
        });
      }
    }
    policyOrThrow(ctx, caller, resolved.profile, form.data.policy);
    const callbackUrl = await callbackOrThrow(ctx, form.data.callbackUrl);
    if (layers.size) await layerImagesOrThrow(ctx, layers, resolved.layers, resolved.limits.maxImagePixels);
    let source: CheckSource;
    if (layers.size) {
      const stored: Extract<CheckSource, { kind: 'layers' }>['layers'] = {};
      for (const layer of resolved.layers) {
        const part = layers.get(layer.id)!;
        const fit = fits[layer.id] as AssemblyFill | undefined;
        stored[layer.id] = { file: await ctx.store.commitLayerUpload(part.temp, id, layer.id), name: part.name, ...(fit ? { fit } : {}) };
      }
      source = { kind: 'layers', layers: stored };
    } else source = { kind: 'upload', file: await ctx.store.commitUpload(temp, id), name: name! };
    const raster = form.data.raster !== 'false';
    const options = {
      raster,
      previews: raster,
      ...(form.data.policy ? { policy: form.data.policy } : {}),
      ...(form.data.fix ? { fix: form.data.fix } : {}),
      ...(form.data.rotate ? { rotate: form.data.rotate } : {}),
      ...(form.data.fit ? { fit: form.data.fit } : {}),
      ...(form.data.locale ? { locale: form.data.locale } : {}),
    };
    return await createJob(ctx, caller, id, source, target, options, callbackUrl);
  } catch (error) {
    await rm(temp, { force: true });
    for (const part of layers.values()) await rm(part.temp, { force: true });
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(ctx.options.maxUploadBytes);
    throw error;
  }
}

/**
 * Each layer image probed in the pool, all at once, before the check is accepted: the first in the
 * product's layer order that is over `maxSidePx` on a side, or cannot be decoded, is the answer (or
 * `pool-unavailable` when the pool is closed). A one-page PDF is left to the assembly.
 */
async function layerImagesOrThrow(ctx: ServiceContext, layers: ReadonlyMap<string, { temp: string; kind: LayerKind | null }>, order: readonly { id: string }[], maxSidePx: number): Promise<void> {
  // A fleet's server runs no checks, but decodes nothing on its own thread either: the process's pool.
  const pool = ctx.pool ?? defaultPool();
  const images = order.flatMap((l) => {
    const part = layers.get(l.id);
    return part && part.kind !== 'pdf' ? [{ id: l.id, temp: part.temp }] : [];
  });
  const problems = await Promise.all(images.map((image) => layerImageProblem(pool, `layer.${image.id}`, image.temp, maxSidePx)));
  const problem = problems.find((p) => p !== null);
  if (problem) {
    ctx.metrics.rejectedSubmission(problem.status === 503 ? 'unavailable' : 'invalid');
    throw problem;
  }
}

/**
 * An error reading the multipart body: the multipart parser's own (no boundary, a part cut short,
 * a malformed header) carry no code and are the client's; fastify's (`FST_…`), the file system's
 * (`ENOSPC`…) and our problems keep their own answer.
 */
function formError(error: unknown): unknown {
  if (error instanceof Problem || !(error instanceof Error) || (error as { code?: unknown }).code !== undefined) return error;
  return new Problem('multipart-invalid', `The multipart body cannot be read: ${error.message}.`);
}

/** The parts of a multipart body, an error reading them made a {@link formError} (the loop's own throws are not touched). */
async function* formParts<T>(parts: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    for await (const part of parts) yield part;
  } catch (error) {
    throw formError(error);
  }
}

function unknownLayer(part: string, layers: readonly { id: string }[]): Problem {
  const ids = layers.map((l) => l.id).join(', ');
  return new Problem('request-invalid', `The part "${part}" names no layer of this product; its layers: ${ids}.`, { errors: [{ path: part, message: `no such layer; the layers are ${ids}` }] });
}

function tooLarge(limit: number): Problem {
  return new Problem(
    'upload-too-large',
    `The file is over the upload limit of ${grouped(limit)} bytes; it was refused when it reached it. The order service takes files up to 50 MB: recompress its images.`,
    {
      limitBytes: limit,
    },
  );
}

export async function acceptUrl(ctx: ServiceContext, body: unknown, caller: Caller): Promise<CheckJob> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    ctx.metrics.rejectedSubmission('unsupported-media');
    throw new Problem('unsupported-media-type', 'Send multipart/form-data (a file part and sku or product + variant fields) or an application/json object { "url", "sku" }.');
  }
  const parsed = CheckUrlBodySchema.safeParse(body);
  if (!parsed.success) {
    ctx.metrics.rejectedSubmission('invalid');
    const errors = zodFields(parsed.error);
    throw new Problem('request-invalid', `The body is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
  }
  const b = parsed.data;
  // The operator's profile is the bound: a call may ask for a stricter check, never a looser one.
  const { target, resolved } = targetOrThrow(ctx, b);
  if (b.layers) {
    const problems = layerProblems(Object.keys(b.layers), resolved.layers).map((p) => ({ path: `layers.${p.path}`, message: p.message }));
    if (problems.length) {
      ctx.metrics.rejectedSubmission('invalid');
      throw new Problem('request-invalid', `${resolved.profile.id} ${resolved.variant.id} takes one image per layer: ${problems.map((e) => `${e.path}: ${e.message}`).join('; ')}`, {
        errors: problems,
      });
    }
  }
  const looser = loosenings(resolved.limits, resolved.profile.severities, b);
  if (looser.length) {
    ctx.metrics.rejectedSubmission('limits-not-allowed', caller.tenant);
    throw new Problem('limits-not-allowed', `A check may only be stricter than this server's ${resolved.profile.id} profile: ${looser.map((l) => `${l.path} ${l.message}`).join('; ')}.`, {
      errors: looser,
    });
  }
  policyOrThrow(ctx, caller, resolved.profile, b.policy);
  const callbackUrl = await callbackOrThrow(ctx, b.callbackUrl);
  const options = {
    raster: b.raster ?? true,
    previews: b.raster ?? true,
    ...(b.severities ? { severities: b.severities } : {}),
    ...(b.limits ? { limits: b.limits } : {}),
    ...(b.policy ? { policy: b.policy } : {}),
    ...(b.fix ? { fix: b.fix } : {}),
    ...(b.rotate ? { rotate: b.rotate } : {}),
    ...(b.fit ? { fit: b.fit } : {}),
    ...(b.locale ? { locale: b.locale } : {}),
  };
  const source: CheckSource = b.layers ? { kind: 'layers', layers: b.layers } : { kind: 'url', url: b.url! };
  return createJob(ctx, caller, newId(), source, target, options, callbackUrl);
}

/** A call's policy may only tighten the operator's (the profile's severities and policy). */
function policyOrThrow(ctx: ServiceContext, caller: Caller, profile: Profile, policy: Policy | undefined): void {
  if (!policy) return;
  const looser = policyLoosenings(profileRules(profile), policy);
  if (looser.length) {
    ctx.metrics.rejectedSubmission('limits-not-allowed', caller.tenant);
    throw new Problem('limits-not-allowed', `A check may only be stricter than this server's ${profile.id} profile: ${looser.map((l) => `${l.path} ${l.message}`).join('; ')}.`, {
      errors: looser,
    });
  }
}

function targetOrThrow(ctx: ServiceContext, fields: { sku?: string | undefined; product?: string | undefined; variant?: string | undefined }) {
  const t = targetOf(fields);
  if (!t.ok) {
    ctx.metrics.rejectedSubmission('invalid');
    throw new Problem('request-invalid', t.errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors: t.errors });
  }
  try {
    return { target: t.target, resolved: ctx.registry.resolve(t.target) };
  } catch (error) {
    ctx.metrics.rejectedSubmission('unknown-target');
    throw error;
  }
}

async function callbackOrThrow(ctx: ServiceContext, url: string | undefined): Promise<string | undefined> {
  if (url === undefined) return undefined;
  if (!ctx.options.callbackSecret) {
    throw new Problem('callback-not-configured', 'This server signs no callbacks: start it with --callback-secret to use callbackUrl.', {
      errors: [{ path: 'callbackUrl', message: 'the server has no callback secret' }],
    });
  }
  // Judged now, its host resolved, and again at each delivery (the address may change).
  const problem = await resolvedCallbackUrlProblem(url, ctx.options.allowHosts);
  if (problem) throw new Problem('callback-url-refused', `callbackUrl ${problem}.`, { errors: [{ path: 'callbackUrl', message: problem }] });
  return url;
}

async function createJob(
  ctx: ServiceContext,
  caller: Caller,
  id: string,
  source: CheckSource,
  target: CheckJob['target'],
  options: z.input<typeof CheckOptionsSchema>,
  callbackUrl: string | undefined,
): Promise<CheckJob> {
  const owner = { tenant: caller.tenant, maxRunning: caller.limits.maxRunning };
  const job = CheckJobSchema.parse({ id, createdAt: new Date().toISOString(), source, target, options, owner, ...(callbackUrl ? { callbackUrl } : {}) });
  await ctx.store.create(job, newRecord(job));
  return job;
}
