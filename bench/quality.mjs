/**
 * npm run bench:quality — the evidence for image-upscaled and image-jpeg-quality, and the made
 * cases of the seam, line-width and text-size checks.
 *
 * The labelled set is made at run time (bench/inputs/quality/, never committed) from natural
 * photographs that Debian ships (lomiri-wallpapers-16.04, lomiri-wallpapers-20.04, mate-backgrounds:
 * `apt-get install lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 mate-backgrounds`); the sources
 * and their SHA-256 are in bench/quality-sources.json. From each photo:
 * - native: downscaled to 1,024 px on its longest side (ImageMagick, Lanczos), so that whatever
 *   the wallpaper's own history, every pixel carries detail; JPEG quality 92;
 * - upscaled 1.5×, 2× and 4× from the native with four filters — ImageMagick Catrom (bicubic),
 *   ImageMagick Lanczos, sharp/libvips lanczos3 and sharp cubic — JPEG 92;
 * - blurred (Gaussian σ 1, 2, 3 px), JPEG 92;
 * - JPEG at quality 30, 50, 70, 90 (for image-jpeg-quality; and as negatives for image-upscaled);
 * and smooth art: the wallpapers that are illustrations, and vector art drawn at test time (SVG
 * gradients and shapes), at 1,024 px, JPEG 92.
 *
 * image-upscaled is run as in a check of a page drawn from the image: raster/image-detail.ts's
 * measureJpegDetail on the JPEG bytes with the 1,200-px preview as its overview (the first
 * textured 512-row band, its busiest 512-px window); its CPU time is counted, the preview's not
 * (a check makes the preview anyway). Prints recall per factor and filter,
 * false positives per negative class, precision, factor error; and JPEG quality error per encoder
 * setting. Results: bench/quality-results.json (and by hand in bench/RESULTS.md).
 *
 * `--flat-only` runs issue 43's flat-art set alone (bench/quality-flat.mjs: designs drawn at their
 * own pixel size must get no image-upscaled finding; pixel art enlarged by nearest neighbour must),
 * `--camera-only` issue 36's camera set alone, `--wallpapers-only` the set above alone,
 * `--resamplers-only` issue 46's resampler set alone (bench/quality-resamplers.mjs: photos and
 * resamplers the detector was not designed on; its design part, or QUALITY_PART=heldout once).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { measureJpegDetail } from '../dist/src/raster/image-detail.js';
import { jpegQuality } from '../dist/src/pdf/jpeg-quality.js';
import { makeCameraSet } from './quality-set.mjs';
import { checkCameraSet, summariseCamera } from './quality-camera.mjs';
import { checkFlatSet, summariseFlat } from './quality-flat.mjs';
import { makeResamplerSet, resamplerTable } from './quality-resamplers.mjs';
import { magickPolicyDir } from './magick-policy.mjs';

const here = new URL('.', import.meta.url).pathname;
const OUT = join(here, 'inputs', 'quality');
const BG = '/usr/share/backgrounds';
const PHOTOS = [
  ...[
    'Bridge_by_Sander_Klootwijk',
    'Dragonfly_by_Bolly',
    'Picture_0B_by_freespace',
    'Picture_1A_by_freespace',
    'Wine_by_Jakkub_Mede',
    'aitzgorri_by_Aitzol_Berasategi',
    'analogpattern_by_Peter_Nerlich',
    'free_by_Peter_Nerlich',
    'friends_by_Aitzol_Berasategi',
    'greentock_by_Peter_Nerlich',
    'life_by_Aitzol_Berasategi',
    'picosdeeuropa_by_Aitzol_Berasategi',
    'seeding_by_Clements_Engelhardt',
    'sunset_by_Aitzol_Berasategi',
    'umang_by_Abhishek_Mudgal',
    'Infinite-Sea_by_Aury88',
    'Kleiber_by_Lukas_Baubkus',
  ].map((n) => ({ pkg: n.startsWith('Infinite') || n.startsWith('Kleiber') ? 'lomiri-wallpapers-20.04' : 'lomiri-wallpapers-16.04', path: `${BG}/${n}.jpg` })),
  ...['Aqua', 'Blinds', 'Dune', 'FreshFlower', 'Garden', 'GreenMeadow', 'LadyBird', 'RainDrops', 'Storm', 'TwoWings', 'Wood', 'YellowFlower'].map((n) => ({
    pkg: 'mate-backgrounds',
    path: `${BG}/mate/nature/${n}.jpg`,
  })),
];
const ART = [
  { pkg: 'lomiri-wallpapers-20.04', path: `${BG}/Fossa_by_Jasper_Roks.jpg` },
  { pkg: 'lomiri-wallpapers-20.04', path: `${BG}/Painting-Colors_by__herobrine7gamer.jpg` },
  ...['Flow.png', 'Gulp.png', 'Silk.png', 'Spring.png', 'Waves.png', 'Elephants.jpg'].map((n) => ({ pkg: 'mate-backgrounds', path: `${BG}/mate/abstract/${n}` })),
];
const FACTORS = [1.5, 2, 4];
const FILTERS = ['im-catrom', 'im-lanczos', 'sharp-lanczos3', 'sharp-cubic'];
const BLURS = [1, 2, 3];
const QUALITIES = [30, 50, 70, 90];
const NATIVE = 1024;

function magick(args) {
  const policy = magickPolicyDir(OUT);
  execFileSync('/usr/bin/convert', args, { env: { ...process.env, MAGICK_CONFIGURE_PATH: policy } });
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Vector art drawn here: gradients, flat shapes, a few crisp edges. */
function svgArt(i) {
  const hue = (i * 67) % 360;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${NATIVE}" height="${NATIVE * 0.75}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,60%)"/><stop offset="1" stop-color="hsl(${(hue + 120) % 360},60%,30%)"/></linearGradient>
  <radialGradient id="r"><stop offset="0" stop-color="#fff" stop-opacity=".8"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${300 + i * 40}" cy="300" r="220" fill="url(#r)"/>
  <path d="M0 ${600 - i * 10} C 300 ${450 + i * 20}, 600 700, ${NATIVE} 520 L ${NATIVE} 768 L 0 768 Z" fill="hsl(${(hue + 200) % 360},50%,25%)"/>
  <text x="80" y="140" font-family="DejaVu Sans" font-size="90" fill="#fff">Art ${i}</text></svg>`;
}

async function makeSet() {
  mkdirSync(OUT, { recursive: true });
  const marker = join(OUT, '.done-v1');
  const sources = [];
  for (const s of [...PHOTOS, ...ART]) {
    if (!existsSync(s.path)) throw new Error(`${s.path} is missing: apt-get install lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 mate-backgrounds`);
    sources.push({ ...s, sha256: sha256(readFileSync(s.path)) });
  }
  writeFileSync(join(here, 'quality-sources.json'), `${JSON.stringify(sources, null, 2)}\n`);
  const items = [];
  const add = (file, label) => items.push({ file, ...label });
  for (const [n, s] of PHOTOS.entries()) {
    const id = `p${String(n).padStart(2, '0')}`;
    const native = join(OUT, `${id}-native.png`);
    if (!existsSync(marker)) magick([s.path, '-filter', 'Lanczos', '-resize', `${NATIVE}x${NATIVE}`, native]);
    const file = (name) => join(OUT, `${id}-${name}.jpg`);
    if (!existsSync(marker)) {
      magick([native, '-quality', '92', file('native')]);
      for (const f of FACTORS) {
        const pct = `${f * 100}%`;
        magick([native, '-filter', 'Catrom', '-resize', pct, '-quality', '92', file(`up${f}-im-catrom`)]);
        magick([native, '-filter', 'Lanczos', '-resize', pct, '-quality', '92', file(`up${f}-im-lanczos`)]);
        const meta = await sharp(native).metadata();
        for (const kernel of ['lanczos3', 'cubic']) {
          await sharp(native)
            .resize(Math.round(meta.width * f), Math.round(meta.height * f), { kernel })
            .jpeg({ quality: 92 })
            .toFile(file(`up${f}-sharp-${kernel}`));
        }
      }
      for (const b of BLURS) magick([native, '-gaussian-blur', `0x${b}`, '-quality', '92', file(`blur${b}`)]);
      for (const q of QUALITIES) magick([native, '-quality', String(q), file(`q${q}`)]);
    }
    add(file('native'), { cls: 'native', factor: 1 });
    for (const f of FACTORS) for (const filter of FILTERS) add(file(`up${f}-${filter}`), { cls: 'upscaled', factor: f, filter });
    for (const b of BLURS) add(file(`blur${b}`), { cls: `blurred σ${b}`, factor: 1 });
    for (const q of QUALITIES) add(file(`q${q}`), { cls: `jpeg q${q}`, factor: 1, quality: q });
  }
  for (const [n, s] of ART.entries()) {
    const file = join(OUT, `art${n}.jpg`);
    if (!existsSync(marker)) magick([s.path, '-filter', 'Lanczos', '-resize', `${NATIVE}x${NATIVE}`, '-quality', '92', file]);
    add(file, { cls: 'smooth art', factor: 1 });
  }
  for (let i = 0; i < 8; i++) {
    const file = join(OUT, `svg${i}.jpg`);
    if (!existsSync(marker))
      await sharp(Buffer.from(svgArt(i)))
        .jpeg({ quality: 92 })
        .toFile(file);
    add(file, { cls: 'smooth art', factor: 1 });
  }
  writeFileSync(marker, '');
  const manifest = items.map((i) => ({ ...i, file: basename(i.file), sha256: sha256(readFileSync(i.file)) }));
  writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return items;
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)} %` : '—');

// `--camera-only`: issue 36's set alone; `--wallpapers-only`: issue 25's alone; `--flat-only`: issue 43's alone.
const flatOnly = process.argv.includes('--flat-only');
const cameraOnly = process.argv.includes('--camera-only');
const wallpapersOnly = process.argv.includes('--wallpapers-only');
const resamplersOnly = process.argv.includes('--resamplers-only');
if (!cameraOnly && !flatOnly && !resamplersOnly) {
  const items = await makeSet();
  const rows = [];
  let cpuMs = 0;
  for (const item of items) {
    const bytes = new Uint8Array(readFileSync(item.file));
    const meta = await sharp(bytes).metadata();
    // What a check has at hand for a page drawn from its image: the 1,200-px preview (made anyway).
    const preview = await sharp(bytes).resize(1200, 1200, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
    const overview = { data: preview.data, width: preview.info.width, height: preview.info.height, channels: preview.info.channels };
    const c0 = process.cpuUsage();
    const d = await measureJpegDetail(bytes, { ref: '1 0 R', widthPx: meta.width, heightPx: meta.height }, 1e9, overview);
    const c = process.cpuUsage(c0);
    cpuMs += (c.user + c.system) / 1000;
    rows.push({ ...item, file: basename(item.file), detected: d?.factor ?? null, evidence: d?.evidence ?? null, jpeg: jpegQuality(bytes) });
  }

  const lines = [];
  /** Prints a line and keeps it for bench/RESULTS.md. */
  const say = (...parts) => {
    const line = parts.join(' ');
    lines.push(line);
    console.log(line);
  };
  const MIN_FACTOR = 1.5; // the profiles' minUpscaleFactor: smaller estimates are not reported
  const flagged = (r) => r.detected !== null && r.detected >= MIN_FACTOR * 0.95;
  say(
    `image-upscaled on ${rows.length} images (${PHOTOS.length} photos, ${ART.length + 8} pieces of art); detector CPU ${(cpuMs / rows.length).toFixed(0)} ms per image (decode of the band included)\n`,
  );
  say('positives (upscaled): recall and factor error');
  const summary = { recall: {}, negatives: {}, jpegQuality: {} };
  for (const f of FACTORS) {
    for (const filter of FILTERS) {
      const set = rows.filter((r) => r.cls === 'upscaled' && r.factor === f && r.filter === filter);
      const hit = set.filter(flagged);
      const within = hit.filter((r) => Math.abs(r.detected / f - 1) <= 0.25);
      const err = hit.map((r) => Math.abs(r.detected / f - 1)).sort((a, b) => a - b);
      summary.recall[`${f}x ${filter}`] = { n: set.length, detected: hit.length, factorWithin25: within.length, medianError: err[Math.floor(err.length / 2)] ?? null };
      say(
        `  ${`${f}×`.padEnd(5)} ${filter.padEnd(15)} recall ${pct(hit.length, set.length).padStart(8)}  factor within ±25 %: ${pct(within.length, hit.length).padStart(8)}  median error ${err.length ? `${(100 * err[Math.floor(err.length / 2)]).toFixed(1)} %` : '—'}`,
      );
    }
  }
  say('\nnegatives: false positives');
  for (const cls of [...new Set(rows.filter((r) => r.cls !== 'upscaled').map((r) => r.cls))]) {
    const set = rows.filter((r) => r.cls === cls);
    const fp = set.filter(flagged);
    summary.negatives[cls] = { n: set.length, falsePositives: fp.length, files: fp.map((r) => r.file) };
    say(`  ${cls.padEnd(14)} ${fp.length} of ${set.length} flagged${fp.length ? ` (${fp.map((r) => `${r.file} ${r.detected.toFixed(2)}×`).join(', ')})` : ''}`);
  }
  const goal = rows.filter((r) => r.cls === 'upscaled' && r.factor >= 2);
  const tp = goal.filter(flagged).length;
  const negatives = rows.filter((r) => r.cls !== 'upscaled');
  const fp = negatives.filter(flagged).length;
  const allPositive = rows.filter((r) => r.cls === 'upscaled');
  const tpAll = allPositive.filter(flagged).length;
  say(`\nfactors ≥ 2× (bicubic and Lanczos, ImageMagick and sharp): recall ${pct(tp, goal.length)} (${tp}/${goal.length})`);
  say(`precision over every upscaled image against the ${negatives.length} negatives: ${pct(tpAll, tpAll + fp)} (${fp} false positives)`);
  summary.goal = { recall2x: tp / goal.length, precision: tpAll / (tpAll + fp), falsePositives: fp, negatives: negatives.length };

  say('\nimage-jpeg-quality (libjpeg family: ImageMagick and sharp encoders)');
  for (const q of [...QUALITIES, 92]) {
    // Every image of the set was encoded at quality 92 except the qNN ones.
    const set = rows.filter((r) => (r.quality ?? 92) === q && r.jpeg);
    const errs = set.map((r) => Math.abs(r.jpeg.quality - q));
    const within5 = errs.filter((e) => e <= 5).length;
    summary.jpegQuality[q] = { n: set.length, within5, maxError: Math.max(0, ...errs) };
    say(`  quality ${String(q).padStart(3)}: ${within5}/${set.length} within ±5, max error ${Math.max(0, ...errs)}`);
  }

  // The cost on the typical duvet check is measured outside this script (whole processes against the
  // commit before issue 25, alternating; see bench/RESULTS.md) and carried over from the last results.
  const resultsJson = join(here, 'quality-results.json');
  const cost = existsSync(resultsJson) ? (JSON.parse(readFileSync(resultsJson, 'utf8')).cost ?? null) : null;
  const within = Object.values(summary.recall).reduce((a, r) => a + r.factorWithin25, 0);
  const detectedAll = Object.values(summary.recall).reduce((a, r) => a + r.detected, 0);
  const jpegOk = Object.values(summary.jpegQuality).every((q) => q.within5 === q.n);
  const met = (ok) => (ok ? '**met**' : '**not met**');
  const goals = [
    `- image-upscaled recall ≥ 90 % for factors ≥ 2× (bicubic/Lanczos): ${met(summary.goal.recall2x >= 0.9)} (${pct(tp, goal.length)}, ${tp}/${goal.length})`,
    `- image-upscaled precision ≥ 95 % on native photos, blur, compression and smooth art: ${met(summary.goal.precision >= 0.95)} (${pct(tpAll, tpAll + fp)}, ${fp} of ${negatives.length} negatives flagged)`,
    `- estimated factor within ±25 %: ${met(within === detectedAll)} (${within} of ${detectedAll} detections)`,
    `- JPEG quality within ±5 for libjpeg-family encoders: ${met(jpegOk)}`,
    ...(cost ? [`- all checks together add ≤ 15 % CPU to a typical duvet check: ${met(cost.addedPercent <= 15)} (+${cost.addedPercent} %: ${cost.summary}; measured ${cost.measured})`] : []),
  ];
  writeFileSync(
    resultsJson,
    `${JSON.stringify({ images: rows.length, summary, ...(cost ? { cost } : {}), rows: rows.map((r) => ({ file: r.file, cls: r.cls, factor: r.factor, filter: r.filter ?? null, detected: r.detected, evidence: r.evidence && Math.round(r.evidence * 1000) / 1000, jpeg: r.jpeg })) }, null, 2)}\n`,
  );
  const section = `<!-- quality:start -->
  ## Print quality (npm run bench:quality)

  Made ${new Date().toISOString().slice(0, 10)} on ${rows.length} images from the photographs of Debian's lomiri-wallpapers-16.04, lomiri-wallpapers-20.04 and mate-backgrounds (sources and SHA-256: bench/quality-sources.json; every image: bench/inputs/quality/manifest.json). A finding needs an estimate of at least 1.5× (minUpscaleFactor).

  \`\`\`
  ${lines.join('\n').trim()}
  \`\`\`

  Goals (issue 25):
  ${goals.join('\n')}
  <!-- quality:end -->
  `;
  const resultsMd = join(here, 'RESULTS.md');
  const before = existsSync(resultsMd) ? readFileSync(resultsMd, 'utf8') : '';
  writeFileSync(
    resultsMd,
    /<!-- quality:start -->[\s\S]*?<!-- quality:end -->\n?/.test(before) ? before.replace(/<!-- quality:start -->[\s\S]*?<!-- quality:end -->\n?/, section) : `${before.trimEnd()}\n\n${section}`,
  );
  console.log('\nwritten bench/quality-results.json and the quality section of bench/RESULTS.md');
}

if (!wallpapersOnly && !cameraOnly && !resamplersOnly) {
  // Issue 43's flat-art set: designs drawn at their own pixel size, and pixel art enlarged by
  // nearest neighbour (bench/quality-flat.mjs).
  const flatRows = await checkFlatSet(join(here, 'inputs', 'quality-flat'), (i, n) => process.stderr.write(`\r${i}/${n}`));
  process.stderr.write('\n');
  const { lines: flatLines, summary: flatSummary } = summariseFlat(flatRows);
  console.log(flatLines.join('\n'));
  const resultsJson = join(here, 'quality-results.json');
  const previous = existsSync(resultsJson) ? JSON.parse(readFileSync(resultsJson, 'utf8')) : {};
  const flatOut = flatRows.map((r) => ({
    name: r.name,
    cls: r.cls,
    producer: r.producer,
    how: r.how,
    pdfProducer: r.pdfProducer,
    ppi: r.ppi,
    factor: r.factor,
    estimate: r.estimate ?? null,
    reported: r.reported ?? null,
    nearest: r.nearest ?? null,
    crashed: r.crashed ?? null,
  }));
  writeFileSync(resultsJson, `${JSON.stringify({ ...previous, flat: { files: flatRows.length, summary: flatSummary, rows: flatOut } }, null, 2)}\n`);
  const g = flatSummary.goals;
  const section = `<!-- quality-flat:start -->
## Flat art (npm run bench:quality -- --flat-only, issue 43's set)

Made ${new Date().toISOString().slice(0, 10)} on ${flatRows.length} print files made at run time by bench/quality-flat.py (how each is made: bench/inputs/quality-flat/manifest.json): SVG designs rendered at their own size by rsvg-convert, cairosvg and Inkscape; text, shapes, stripes, dot fields, checkerboards and gradients from Pillow and ImageMagick; headless chromium screenshots; pixel art enlarged 2×, 3×, 4× by nearest neighbour (the positives). Each on a page at 120–145 ppi by img2pdf or reportlab, checked end to end by preflight(). Needs Debian's librsvg2-bin, python3-cairosvg, inkscape, imagemagick, img2pdf, python3-reportlab, chromium.

\`\`\`
${flatLines.join('\n').trim()}
\`\`\`

Goals (issue 43):
- flat-art set: 0 image-upscaled findings: ${g.flatFindings === 0 ? '**met**' : '**not met**'} (${g.flatFindings} of ${g.flatFiles})
- pixel art enlarged by nearest neighbour found: ${(100 * g.pixelArtRecall).toFixed(1)} %
<!-- quality-flat:end -->
`;
  const resultsMd = join(here, 'RESULTS.md');
  const before = existsSync(resultsMd) ? readFileSync(resultsMd, 'utf8') : '';
  const marked = /<!-- quality-flat:start -->[\s\S]*?<!-- quality-flat:end -->\n?/;
  writeFileSync(resultsMd, marked.test(before) ? before.replace(marked, section) : `${before.trimEnd()}\n\n${section}`);
  console.log('\nwritten the flat-art set to bench/quality-results.json and bench/RESULTS.md');
}

if (!wallpapersOnly && !flatOnly && !resamplersOnly) {
  // Issue 36's set: camera photos of public test suites, enlarged by twelve resamplers, saved by
  // four encoders, put on pages by six producers — each file checked end to end by preflight().
  const out = join(here, 'inputs', 'quality-camera');
  const cameraItems = await makeCameraSet(out);
  const { rows: cameraRows, cpuMs: cameraCpu } = await checkCameraSet(cameraItems, { onProgress: (i, n) => process.stderr.write(`\r${i}/${n}`) });
  process.stderr.write('\n');
  const { lines: cameraLines, summary: cameraSummary } = summariseCamera(cameraRows, cameraCpu);
  console.log(cameraLines.join('\n'));
  const resultsJson = join(here, 'quality-results.json');
  const previous = existsSync(resultsJson) ? JSON.parse(readFileSync(resultsJson, 'utf8')) : {};
  const rowOut = (r) => ({
    name: r.name,
    photo: r.photo,
    cls: r.cls,
    factor: r.factor,
    resampler: r.resampler ?? null,
    encoder: r.encoder ?? null,
    quality: r.quality ?? null,
    producer: r.producer,
    chain: r.filters ?? null,
    estimate: r.estimate ?? null,
    reported: r.reported ?? null,
    jpegRead: r.jpegRead ?? null,
    crashed: r.crashed ?? null,
  });
  writeFileSync(resultsJson, `${JSON.stringify({ ...previous, camera: { files: cameraRows.length, summary: cameraSummary, rows: cameraRows.map(rowOut) } }, null, 2)}\n`);
  const g = cameraSummary.goals;
  const pctOf = (x) => `${(100 * x).toFixed(1)} %`;
  const met = (ok) => (ok ? '**met**' : '**not met**');
  const jpegQ = Object.entries(cameraSummary.jpegQuality);
  const section = `<!-- quality-camera:start -->
## Print quality on camera photos (npm run bench:quality, issue 36's set)

Made ${new Date().toISOString().slice(0, 10)} on ${cameraRows.length} print files from ${new Set(cameraRows.map((r) => r.photo)).size} camera photos of public test suites (bench/quality-photos.json: origin, commit, SHA-256, licence; every file: bench/inputs/quality-camera/manifest.json), each checked end to end by preflight(). Enlargements of 1.5× and more are placed so that their detail falls below the profiles' 100 ppi: each must be reported.

\`\`\`
${cameraLines.join('\n').trim()}
\`\`\`

Goals (issue 36):
- image-upscaled recall ≥ 95 % at ≥ 2× on JPEG and PNG: ${met(g.jpeg.recall2x >= 0.95 && g.png.recall2x >= 0.95)} (JPEG ${pctOf(g.jpeg.recall2x)} of ${g.jpeg.n2}, PNG ${pctOf(g.png.recall2x)} of ${g.png.n2})
- recall ≥ 80 % at 1.5× on JPEG and PNG: ${met(g.jpeg.recall15 >= 0.8 && g.png.recall15 >= 0.8)} (JPEG ${pctOf(g.jpeg.recall15)} of ${g.jpeg.n15}, PNG ${pctOf(g.png.recall15)} of ${g.png.n15})
- precision ≥ 99 %: ${met(g.precision >= 0.99)} (${pctOf(g.precision)})
- factor within ±15 %: ${pctOf(g.factorWithin15)} of the findings
- JPEG quality within ±2 per encoder: ${jpegQ.map(([e, q]) => `${e} ${q.within2}/${q.n}`).join(', ')}
<!-- quality-camera:end -->
`;
  const resultsMd = join(here, 'RESULTS.md');
  const before = existsSync(resultsMd) ? readFileSync(resultsMd, 'utf8') : '';
  const marked = /<!-- quality-camera:start -->[\s\S]*?<!-- quality-camera:end -->\n?/;
  writeFileSync(resultsMd, marked.test(before) ? before.replace(marked, section) : `${before.trimEnd()}\n\n${section}`);
  console.log('\nwritten the camera set to bench/quality-results.json and bench/RESULTS.md');
}

if (resamplersOnly || !(wallpapersOnly || flatOnly || cameraOnly)) {
  // Issue 46's set: photos and resamplers the detector was not designed on. The held-out part is
  // run once, after all tuning (QUALITY_PART=heldout).
  const part = process.env.QUALITY_PART ?? 'design';
  const items = await makeResamplerSet(join(here, 'inputs', 'quality-resamplers'), part);
  const { rows, cpuMs } = await checkCameraSet(items, { onProgress: (i, n) => process.stderr.write(`\r${i}/${n}`) });
  process.stderr.write('\n');
  console.log(`\n## Resampler set (issue 46), ${part} part\n`);
  console.log(summariseCamera(rows, cpuMs).lines.join('\n'));
  console.log(`\nrecall per resampler and factor (reported/files)\n${resamplerTable(rows).join('\n')}`);
}
