/**
 * Replays what the fuzzing campaign (`npm run fuzz`, campaign.mjs) kept: every file under
 * test/fuzz/regressions/<target>/ goes through its target again (targets.ts), and the target's
 * seeds too (a sample in CI; FUZZ_SEEDS=all for all of them). A file listed in regressions/open.json
 * is a bug found and not fixed yet: its replay must still fail with the message recorded there —
 * when it stops failing, the fix has landed and the entry moves out of open.json (this test says so).
 * Every other file must pass, within the 30-second bound of a check or fix (a `timeout-` file is an
 * input that ran past it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FuzzFinding, TARGETS, type TargetName } from './targets.js';
import { seedsFor } from './seeds.js';

const root = join(import.meta.dirname, '../..');
const dir = join(import.meta.dirname, 'regressions');
/** The bound a check or fix of any file keeps (issue 33: 30 s): a replay past it is a hang kept (`timeout-`). */
const BOUND_MS = 30_000;
/** Per test: the bound and room for the test itself. */
const LIMIT_MS = 60_000;

interface OpenBug {
  target: TargetName;
  file: string;
  /** A part of the FuzzFinding message the replay still gives while the bug is open. */
  fails: string;
  /** Where the bug is and what goes wrong. */
  bug: string;
}
const open: OpenBug[] = existsSync(join(dir, 'open.json')) ? JSON.parse(readFileSync(join(dir, 'open.json'), 'utf8')) : [];

/** What replaying an input gives: null when the target holds its bounds, else what broke (a hang: `ran past …`). */
async function outcome(target: TargetName, bytes: Uint8Array): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${target} ran past ${BOUND_MS} ms`), BOUND_MS);
  });
  const run = (async () => {
    try {
      await TARGETS[target](bytes);
      return null;
    } catch (error) {
      if (error instanceof FuzzFinding) return error.message;
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  })();
  try {
    return await Promise.race([run, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const targets = Object.keys(TARGETS) as TargetName[];

describe('fuzz regression files', () => {
  const files = targets.flatMap((target) =>
    existsSync(join(dir, target))
      ? readdirSync(join(dir, target))
          .sort()
          .map((file) => ({ target, file }))
      : [],
  );
  it('every file of open.json exists under its target', () => {
    for (const bug of open) expect(existsSync(join(dir, bug.target, bug.file)), `${bug.target}/${bug.file}`).toBe(true);
  });
  for (const { target, file } of files) {
    const bug = open.find((b) => b.target === target && b.file === file);
    it(
      `${target}/${file} ${bug ? 'still shows the open bug' : 'passes'}`,
      async () => {
        const message = await outcome(target, new Uint8Array(readFileSync(join(dir, target, file))));
        if (bug) {
          expect(message, `the open bug of ${target}/${file} no longer shows (${bug.bug}): move it out of regressions/open.json`).not.toBeNull();
          expect(message).toContain(bug.fails);
        } else {
          expect(message).toBeNull();
        }
      },
      LIMIT_MS,
    );
  }
});

/** Seeds replayed in CI per target (each target's first ones, in its seed order); FUZZ_SEEDS=all for every seed. */
const SAMPLE = process.env.FUZZ_SEEDS === 'all' ? Number.POSITIVE_INFINITY : Number(process.env.FUZZ_SEEDS ?? 3);

describe('fuzz targets on their seeds', () => {
  for (const target of targets) {
    it(
      `${target}: its seeds pass (${SAMPLE === Number.POSITIVE_INFINITY ? 'all' : SAMPLE})`,
      async () => {
        const seeds = (await seedsFor(target, root, SAMPLE)).slice(0, SAMPLE);
        expect(seeds.length).toBeGreaterThan(0);
        const failed: string[] = [];
        for (const seed of seeds) {
          const message = await outcome(target, seed.bytes);
          if (message && !open.some((b) => b.target === target && message.includes(b.fails))) failed.push(`${seed.name}: ${message}`);
        }
        expect(failed).toEqual([]);
      },
      Math.min(SAMPLE, 400) * LIMIT_MS,
    );
  }
});
