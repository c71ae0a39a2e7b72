/**
 * Which files a batch judges, and which product each is for: a manifest first (CSV with header
 * `file,sku` or `file,product,variant`, or the same as JSON), then a file name that starts with a
 * SKU followed by `__`, then a parent folder named after a SKU.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import type { Target } from '../flow/options.js';
import type { ProfileRegistry, ResolvedTarget } from '../profile/registry.js';

export interface BatchFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the batch folder, with forward slashes. */
  rel: string;
}

/** Every *.pdf under `dir` (any case), sorted, skipping `exclude` folders and hidden entries. */
export async function findPdfs(dir: string, exclude: readonly string[] = []): Promise<BatchFile[]> {
  const root = resolve(dir);
  const skip = exclude.map((e) => resolve(e));
  const out: BatchFile[] = [];
  const walk = async (folder: string) => {
    if (skip.some((s) => folder === s || folder.startsWith(s + sep))) return;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(folder, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && e.name.toLowerCase().endsWith('.pdf')) {
        out.push({ path: p, rel: relative(root, p).split(sep).join('/') });
      }
    }
  };
  await walk(root);
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** Manifest entries by relative path. */
export type Manifest = Map<string, Target>;

/**
 * Reads a manifest: CSV with a header row (`file,sku` or `file,product,variant`; quoted fields
 * allowed) or JSON (an array of `{file, sku}` / `{file, product, variant}`, or `{ "file": "SKU" }`).
 * @throws {InvalidArgumentError} naming the line or entry that is wrong
 */
export async function readManifest(path: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidArgumentError(`Cannot read the manifest ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const manifest: Manifest = new Map();
  const add = (file: unknown, target: Partial<Record<'sku' | 'product' | 'variant', unknown>>, where: string) => {
    if (typeof file !== 'string' || !file.trim()) throw new InvalidArgumentError(`Manifest ${path}: ${where} has no file`);
    const key = file.trim().replace(/\\/g, '/').replace(/^\.\//, '');
    if (typeof target.sku === 'string' && target.sku.trim()) manifest.set(key, { sku: target.sku.trim() });
    else if (typeof target.product === 'string' && typeof target.variant === 'string' && target.product.trim() && target.variant.trim()) {
      manifest.set(key, { product: target.product.trim(), variant: target.variant.trim() });
    } else throw new InvalidArgumentError(`Manifest ${path}: ${where} (${key}) needs a sku, or a product and a variant`);
  };
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (error) {
      throw new InvalidArgumentError(`Manifest ${path} is not valid JSON (${(error as Error).message})`);
    }
    if (Array.isArray(data)) data.forEach((e, i) => add((e as { file?: unknown })?.file, (e ?? {}) as object, `entry ${i + 1}`));
    else for (const [file, sku] of Object.entries(data as object)) add(file, { sku }, `entry "${file}"`);
    return manifest;
  }
  const rows = parseCsv(trimmed);
  const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase());
  const col = (name: string) => header.indexOf(name);
  if (col('file') < 0 || (col('sku') < 0 && (col('product') < 0 || col('variant') < 0))) {
    throw new InvalidArgumentError(`Manifest ${path}: the header must be "file,sku" or "file,product,variant", not "${header.join(',')}"`);
  }
  rows.forEach((r, i) => {
    if (r.every((c) => !c.trim())) return;
    add(r[col('file')], { sku: col('sku') >= 0 ? r[col('sku')] : undefined, product: r[col('product')], variant: r[col('variant')] }, `line ${i + 2}`);
  });
  return manifest;
}

/** RFC 4180 CSV: commas, quoted fields with "" escapes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** A file's product: the target as found, how, and the target resolved (passed down, not looked up again). */
export type Resolution = { target: Target; via: 'manifest' | 'file name' | 'folder'; resolved: ResolvedTarget } | { error: string };

/** The product of one file, by manifest, file-name prefix or folder name, in that order. */
export function resolveTarget(rel: string, manifest: Manifest, registry: ProfileRegistry): Resolution {
  const listed = manifest.get(rel);
  if (listed) {
    try {
      return { target: listed, via: 'manifest', resolved: registry.resolve(listed) };
    } catch (error) {
      return { error: `the manifest names a product that is not in the profiles: ${(error as Error).message}` };
    }
  }
  const name = basename(rel);
  const prefix = name.includes('__') ? name.slice(0, name.indexOf('__')) : null;
  if (prefix) {
    try {
      return { target: { sku: prefix }, via: 'file name', resolved: registry.resolve({ sku: prefix }) };
    } catch {
      // not a SKU: try the folders
    }
  }
  for (let folder = dirname(rel); folder !== '.' && folder !== '/' && folder !== ''; folder = dirname(folder)) {
    const sku = basename(folder);
    try {
      return { target: { sku }, via: 'folder', resolved: registry.resolve({ sku }) };
    } catch {
      // keep looking upwards
    }
  }
  return {
    error: `no product for this file: it is not in the manifest, its name does not start with a SKU followed by "__" (e.g. T-SHIRT-M__order-1234.pdf)${prefix ? ` ("${prefix}" is not a known SKU)` : ''}, and no parent folder is named after a SKU`,
  };
}
