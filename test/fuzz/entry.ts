/**
 * The campaign's entry points (campaign.mjs points Jazzer.js here): each target of targets.ts, with
 * the findings of bugs already kept and still open (regressions/open.json, the same target and
 * message) let through, so that a campaign looks for new bugs instead of stopping at a known one
 * again. FUZZ_KNOWN=report makes them findings again. The replay (regressions.test.ts) calls the
 * targets themselves.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FuzzFinding, TARGETS, type TargetName } from './targets.js';

const openFile = join(process.cwd(), 'test/fuzz/regressions/open.json');
const open: { target: TargetName; fails: string }[] = existsSync(openFile) ? JSON.parse(readFileSync(openFile, 'utf8')) : [];

function entry(target: TargetName) {
  const known = process.env.FUZZ_KNOWN === 'report' ? [] : open.filter((b) => b.target === target).map((b) => b.fails);
  return async (data: Uint8Array): Promise<void> => {
    try {
      await TARGETS[target](data);
    } catch (error) {
      if (error instanceof FuzzFinding && known.some((k) => error.message.includes(k))) return;
      throw error;
    }
  };
}

export const structure = entry('structure');
export const content = entry('content');
export const decoders = entry('decoders');
export const fixFile = entry('fix');
export const images = entry('images');
export const vector = entry('vector');
export const reorder = entry('reorder');
export const assembleImages = entry('assemble');
