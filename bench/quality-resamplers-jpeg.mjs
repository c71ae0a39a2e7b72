/**
 * Issue 46's diagnosis: the resampler set's 1.5× enlargements (made by bench/quality-resamplers.mjs
 * in bench/inputs/quality-resamplers) measured by the detector directly — its busiest window, no
 * PDF — as the lossless PNG and saved again as JPEG (sharp, quality 92 and 80), with the time per
 * estimate. `node bench/quality-resamplers-jpeg.mjs [photo …]` (default: the design part's photos).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { busiestWindow, estimateDetail } from '../dist/src/raster/detail.js';

const root = new URL('./inputs/quality-resamplers', import.meta.url).pathname;
const photos = process.argv.length > 2 ? process.argv.slice(2) : ['gravel', 'landscape_2', 'tmshre_riaphotographs_srgb8'];
const out = {};
for (const photo of photos) {
  for (const f of readdirSync(join(root, photo)).filter((f) => /-1\.5x\.png$/.test(f))) {
    const res = f.replace(/-1\.5x\.png$/, '');
    for (const q of [null, 92, 80]) {
      let img = sharp(join(root, photo, f)).removeAlpha();
      if (q) img = sharp(await img.jpeg({ quality: q }).toBuffer());
      const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
      const t0 = performance.now();
      const d = estimateDetail(busiestWindow(data, info.width, info.height, info.channels));
      const ms = performance.now() - t0;
      const k = q ? `JPEG q${q}` : 'PNG';
      out[k] ??= { n: 0, hit: 0, ms: 0, miss: [] };
      out[k].n++;
      out[k].ms += ms;
      if (d.factor) out[k].hit++;
      else out[k].miss.push(`${photo}/${res}`);
    }
  }
}
for (const [k, v] of Object.entries(out)) console.log(`${k}: ${v.hit}/${v.n} found, ${(v.ms / v.n).toFixed(0)} ms per estimate; missed: ${v.miss.join(' ')}`);
