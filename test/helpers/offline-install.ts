/**
 * Installs packed tarballs into an empty project the way a user's `npm install` would, but offline:
 * the project gets a lockfile whose entries are this repository's own (package-lock.json: the
 * versions, `resolved` URLs and integrity hashes `npm ci` put in the npm cache), chosen by walking
 * the dependencies of the tarballs' package.json files as npm resolves them (nearest node_modules
 * first, optional dependencies kept for npm to skip on other platforms, peer dependencies followed
 * unless marked optional). `npm ci --offline` then takes every package from the cache and the
 * tarballs from disk; nothing is fetched, and a package missing from the cache fails the install
 * (ENOTCACHED) instead of being downloaded.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  license?: string;
}

export interface PackedPackage {
  /** The tarball `npm pack` wrote. */
  tarball: string;
  /** Its package.json. */
  manifest: Manifest;
}

/** Names a package at `location` needs at run time (its peers unless optional). */
function needs(entry: LockEntry | Manifest): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => !entry.peerDependenciesMeta?.[n]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

/** Where npm (and Node) finds `name` from a package installed at `location`. */
function locate(packages: Record<string, LockEntry>, location: string, name: string): string | null {
  let at = location;
  for (;;) {
    const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!at) return null;
    const i = at.lastIndexOf('/node_modules/');
    at = i < 0 ? '' : at.slice(0, i);
  }
}

/**
 * Writes package.json and package-lock.json for an app in `dir` that depends on `direct` (by
 * tarball), with `alsoPacked` (tarballs a direct package depends on, e.g. print-preflight for
 * print-preflight-server) in place of the registry's copies, and the app's `overrides` (as a user
 * writes them in package.json). Returns the lock's package paths.
 */
export function writeOfflineProject(dir: string, repoLock: string, direct: PackedPackage[], alsoPacked: PackedPackage[] = [], overrides?: Record<string, string>): string[] {
  const lock = JSON.parse(readFileSync(repoLock, 'utf8')) as { packages: Record<string, LockEntry> };
  const packed = new Map([...direct, ...alsoPacked].map((p) => [p.manifest.name, p]));
  const out: Record<string, LockEntry> = {};
  const queue: [string, LockEntry | Manifest][] = [];
  const fileEntry = (p: PackedPackage): LockEntry => {
    const m = p.manifest;
    const { name: _name, ...fields } = {
      name: m.name,
      version: m.version,
      resolved: `file:${basename(p.tarball)}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(p.tarball)).digest('base64')}`,
      ...(m.license ? { license: m.license } : {}),
      ...(m.dependencies ? { dependencies: m.dependencies } : {}),
      ...(m.optionalDependencies ? { optionalDependencies: m.optionalDependencies } : {}),
      ...(m.peerDependencies ? { peerDependencies: m.peerDependencies } : {}),
      ...(m.peerDependenciesMeta ? { peerDependenciesMeta: m.peerDependenciesMeta } : {}),
      ...(m.bin ? { bin: m.bin } : {}),
      ...(m.engines ? { engines: m.engines } : {}),
    };
    return fields;
  };
  for (const p of packed.values()) {
    const at = `node_modules/${p.manifest.name}`;
    out[at] = fileEntry(p);
    queue.push([at, p.manifest]);
  }
  while (queue.length) {
    const [at, entry] = queue.shift()!;
    for (const name of needs(entry)) {
      if (packed.has(name)) continue;
      // Packed packages sit at the top, as the repository's root does: resolve their needs from there.
      const found = locate(lock.packages, packed.has(entry.name as string) && at === `node_modules/${entry.name as string}` ? '' : at, name);
      if (!found) {
        if (entry.optionalDependencies?.[name] !== undefined) continue;
        throw new Error(`${at} needs ${name}, which package-lock.json does not hold`);
      }
      if (out[found]) continue;
      const { dev: _d, devOptional: _o, peer: _p, extraneous: _e, ...copy } = lock.packages[found]!;
      out[found] = copy;
      queue.push([found, lock.packages[found]!]);
    }
  }
  const dependencies = Object.fromEntries(direct.map((p) => [p.manifest.name, `file:${basename(p.tarball)}`]));
  const app = { name: 'empty-app', version: '1.0.0', private: true, type: 'module', dependencies, ...(overrides ? { overrides } : {}) };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(app, null, 2)}\n`);
  const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: app.name, version: app.version, lockfileVersion: 3, requires: true, packages: { '': { name: app.name, version: app.version, dependencies }, ...sorted } }, null, 2)}\n`,
  );
  return Object.keys(sorted);
}

/** `npm ci --offline` in `dir`: the npm cache and the tarballs only. */
export function npmCiOffline(dir: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=warn'], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Bytes the files under `dir` take on disk (`du -sk`), and their apparent size (`du -sb`). */
export function diskUsage(dir: string): { diskBytes: number; apparentBytes: number } {
  const k = spawnSync('du', ['-sk', dir], { encoding: 'utf8' });
  const b = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  return { diskBytes: Number(k.stdout.split('\t')[0]) * 1024, apparentBytes: Number(b.stdout.split('\t')[0]) };
}
