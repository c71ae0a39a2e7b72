/**
 * Issue 43's flat-art set for bench:quality: designs drawn at their own pixel size by real
 * producers — SVG rendered by rsvg-convert, cairosvg and Inkscape; text, shapes, stripes, dot
 * fields, checkerboards and gradients from Pillow and ImageMagick; headless chromium screenshots —
 * and, as positives, pixel art enlarged 2×, 3× and 4× by nearest neighbour (Pillow, ImageMagick).
 * bench/quality-flat.py makes them (never committed; how each is made is in the manifest) and puts
 * each on a page at 120–145 ppi through img2pdf or reportlab; every file is checked end to end by
 * preflight() (bench/quality-camera.mjs's checkCameraSet). Goal: no image-upscaled finding on the
 * flat art; the pixel art found, as repeated pixels.
 *
 * Needs Debian's librsvg2-bin, python3-cairosvg, inkscape (left out when absent), imagemagick,
 * img2pdf, python3-reportlab, python3-pil and chromium.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCameraSet } from './quality-camera.mjs';

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)} %` : '—');

/** Makes (or completes) the set under `out`; returns its items (bench/quality-flat.py's manifest). */
export function makeFlatSet(out) {
  execFileSync('/usr/bin/python3', [new URL('./quality-flat.py', import.meta.url).pathname, out], { stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
}

/** Figures and the lines that print them. */
export function summariseFlat(rows) {
  const lines = [];
  const say = (...p) => lines.push(p.join(' '));
  const ok = rows.filter((r) => !r.crashed);
  const flat = ok.filter((r) => r.cls === 'flat');
  const pixel = ok.filter((r) => r.cls === 'pixel-art');
  const found = (r) => r.reported !== null;
  say(`image-upscaled on ${ok.length} print files of flat art (${flat.length} drawn at their own size, ${pixel.length} pixel art enlarged by nearest neighbour); ${rows.length - ok.length} crashed`);
  const summary = { files: ok.length, crashed: rows.length - ok.length, byProducer: {}, pixelArt: {} };
  say('\nflat art: image-upscaled findings (goal 0), and the detector’s own estimates of 1.5× or more');
  for (const producer of [...new Set(flat.map((r) => r.producer))].sort()) {
    const set = flat.filter((r) => r.producer === producer);
    const fp = set.filter(found);
    const est = set.filter((r) => r.estimate !== null && r.estimate >= 1.45);
    summary.byProducer[producer] = { n: set.length, findings: fp.length, estimates: est.length, files: fp.map((r) => `${r.name} ${r.reported}×`) };
    say(`  ${producer.padEnd(12)} ${fp.length} findings of ${set.length}, ${est.length} estimates${fp.length ? ` (${fp.map((r) => `${r.name} ${r.reported}×`).join(', ')})` : ''}`);
  }
  say('\npixel art enlarged by nearest neighbour: found, and the factor');
  for (const f of [...new Set(pixel.map((r) => r.factor))].sort()) {
    const set = pixel.filter((r) => r.factor === f);
    const hit = set.filter(found);
    const exact = hit.filter((r) => Math.abs(r.reported / f - 1) <= 0.05 && r.nearest);
    summary.pixelArt[`${f}x`] = { n: set.length, found: hit.length, exactNearest: exact.length };
    say(
      `  ${`${f}×`.padEnd(4)} found ${hit.length}/${set.length}, as repeated pixels at the factor (±5 %) ${exact.length}${
        hit.length < set.length
          ? ` (missed: ${set
              .filter((r) => !found(r))
              .map((r) => `${r.name} estimate ${r.estimate ?? '—'}`)
              .join(', ')})`
          : ''
      }`,
    );
  }
  const fp = flat.filter(found).length;
  const tp = pixel.filter(found).length;
  summary.goals = { flatFindings: fp, flatFiles: flat.length, pixelArtRecall: tp / Math.max(1, pixel.length) };
  say(`\nflat art: ${fp} image-upscaled findings of ${flat.length} files; pixel art found ${pct(tp, pixel.length)} (${tp}/${pixel.length})`);
  return { lines, summary };
}

/** Checks the set made under `out`. */
export async function checkFlatSet(out, onProgress) {
  const items = makeFlatSet(out);
  const { rows } = await checkCameraSet(items, { onProgress });
  return rows;
}

// `node bench/quality-flat.mjs [DIR]` makes and checks the set alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? new URL('./inputs/quality-flat', import.meta.url).pathname;
  const rows = await checkFlatSet(dir, (i, n) => process.stderr.write(`\r${i}/${n}`));
  process.stderr.write('\n');
  const { lines } = summariseFlat(rows);
  console.log(lines.join('\n'));
  if (process.env.QUALITY_ROWS) (await import('node:fs')).writeFileSync(process.env.QUALITY_ROWS, JSON.stringify(rows, null, 1));
}
