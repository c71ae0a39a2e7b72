import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProfileError } from '../errors.js';
import { ProfileSchema, type Profile } from './schema.js';
import { ProfileRegistry } from './registry.js';
import { packageRoot } from '../util/package-root.js';
import { zodIssues } from '../util/parse.js';

/**
 * The profiles/ folder shipped with the package.
 * @example
 * import { DEFAULT_PROFILES_DIR, loadProfiles } from 'print-preflight';
 * const shipped = await loadProfiles(DEFAULT_PROFILES_DIR); // the same as loadProfiles()
 */
export const DEFAULT_PROFILES_DIR = join(packageRoot(), 'profiles');

export { formatPath, zodIssues } from '../util/parse.js';

/**
 * Validates one profile object. Throws a {@link ProfileError} naming `file` and each failing field.
 * @example parseProfile(JSON.parse(text), 'profiles/hoodie.json')
 */
export function parseProfile(value: unknown, file: string | null = null): Profile {
  const result = ProfileSchema.safeParse(value);
  if (!result.success) throw new ProfileError(file, zodIssues(result.error));
  return result.data;
}

/**
 * Loads every `*.json` file of a folder as a product profile (files ending in `.schema.json` are
 * skipped). Throws a {@link ProfileError} that names the file and the field of the first broken
 * profile, or two profiles that claim the same id or SKU.
 * @param dir folder of profile JSON files; defaults to the profiles shipped with the package
 * @example
 * const profiles = await loadProfiles('./my-profiles');
 * profiles.resolve({ sku: 'T-SHIRT-M' });
 */
export async function loadProfiles(dir: string = DEFAULT_PROFILES_DIR): Promise<ProfileRegistry> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.endsWith('.schema.json')).sort();
  } catch (cause) {
    throw new ProfileError(dir, [{ path: '', message: `cannot read the profiles folder (${(cause as Error).message})` }], cause);
  }
  if (names.length === 0) throw new ProfileError(dir, [{ path: '', message: 'the folder holds no *.json profile' }]);
  const profiles: { profile: Profile; file: string }[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let value: unknown;
    try {
      value = JSON.parse(await readFile(file, 'utf8'));
    } catch (cause) {
      throw new ProfileError(file, [{ path: '', message: `not valid JSON (${(cause as Error).message})` }], cause);
    }
    profiles.push({ profile: parseProfile(value, file), file });
  }
  return ProfileRegistry.from(profiles);
}

/** The registry an options object names: a loaded registry as it is, or a folder (default: the shipped profiles) loaded once. */
export function registryFrom(profiles: string | ProfileRegistry | undefined): Promise<ProfileRegistry> {
  return profiles instanceof ProfileRegistry ? Promise.resolve(profiles) : loadProfilesCached(profiles);
}

const cache = new Map<string, Promise<ProfileRegistry>>();

/** Like {@link loadProfiles}, loading each folder once per process. */
export function loadProfilesCached(dir: string = DEFAULT_PROFILES_DIR): Promise<ProfileRegistry> {
  let entry = cache.get(dir);
  if (!entry) {
    entry = loadProfiles(dir);
    entry.catch(() => cache.delete(dir));
    cache.set(dir, entry);
  }
  return entry;
}
