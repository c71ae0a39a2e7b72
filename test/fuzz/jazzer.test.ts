/**
 * The fuzzing set-up itself, on this machine: Jazzer.js's native addon loads (built by
 * jazzer/build-addon.mjs when the shipped one cannot: see there; .ci/run builds it before the tests,
 * which reach no network), a coverage-guided run finds a
 * planted bug and writes its input, and a short campaign (`npm run fuzz` with FUZZ_SECONDS=10 on the
 * decoders target) runs thousands of inputs through the compiled target and finds nothing. The
 * campaign proper is not run in CI: `npm run fuzz`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'pp-jazzer-'));
/** The smoke campaign's compiled targets: inside the repository, where their imports resolve; apart from a campaign's dist-fuzz/. */
const dist = join(root, 'dist-fuzz-test');
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(dist, { recursive: true, force: true });
});

describe('coverage-guided fuzzing with Jazzer.js', () => {
  beforeAll(() => {
    const loads = spawnSync(process.execPath, [join(root, 'test/fuzz/jazzer/build-addon.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(loads.status, `${loads.stdout}${loads.stderr}`).toBe(0);
  }, 60_000);

  it('finds a bug planted behind comparisons and writes its input', () => {
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/@jazzer.js/core/dist/cli.js'),
        join(root, 'test/fuzz/jazzer/planted.mjs'),
        '--sync',
        '--includes',
        'planted',
        '--',
        '-max_total_time=90',
        '-seed=7',
        `-artifact_prefix=${work}/`,
      ],
      { cwd: work, encoding: 'utf8' },
    );
    expect(r.status, r.stderr.slice(-2000)).toBe(77);
    expect(r.stderr).toContain('planted bug reached');
    const crash = readdirSync(work).find((f) => f.startsWith('crash-'));
    expect(crash).toBeDefined();
    const input = readFileSync(join(work, crash!));
    expect(input.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 180_000);

  it('runs a 10-second campaign on the decoders target and finds nothing', () => {
    const env = { ...process.env, FUZZ_TARGETS: 'decoders', FUZZ_SECONDS: '10', FUZZ_DIST: dist, FUZZ_WORK: join(work, 'campaign') };
    const r = spawnSync(process.execPath, [join(root, 'test/fuzz/campaign.mjs')], { cwd: root, encoding: 'utf8', env });
    expect(r.status, `${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`).toBe(0);
    const summary = JSON.parse(readFileSync(join(work, 'campaign/summary.json'), 'utf8')) as { target: string; runs: number; found: string[] }[];
    expect(summary.map((s) => s.target)).toEqual(['decoders']);
    expect(summary[0]!.found).toEqual([]);
    const log = () => readFileSync(join(work, 'campaign/decoders/last-run.log'), 'utf8').slice(-3000);
    expect(summary[0]!.runs, log()).toBeGreaterThan(500);
  }, 300_000);
});
