/**
 * bench:quality on issue 36's set (bench/quality-set.mjs): every print file is checked end to end
 * by preflight() — the structure read, the page drawn, its image's detail measured in the pool,
 * the checks — and judged against what is true of it:
 * - image-upscaled: recall per factor and per image kind (the uploaded picture's format, PNG or
 *   JPEG, and the filter chain the producer wrote), per resampler and per producer; precision over
 *   every finding; the factor's error (within ±15 %); and the detector's own verdicts (an estimate
 *   of at least 1.5× on a page whose resolution would not report it) on the negatives;
 * - image-jpeg-quality: the quality read from the file against the encoder's setting, per encoder,
 *   for the files whose JPEG reaches the PDF unchanged (reportlab, img2pdf, cairo, pikepdf,
 *   Ghostscript pass it through; ImageMagick encodes again).
 * Placed at 120–145 ppi, every enlargement of 1.5× or more carries detail below the profiles'
 * 100 ppi, so each must be reported; a 1.25× one is not reported (minUpscaleFactor 1.5), and its
 * estimate is shown for what it is.
 */
import { readFileSync } from 'node:fs';
import { preflight, PreflightPool } from '../dist/src/index.js';

const TARGET = { product: 'curtains', variant: '140x245' };
// Every page prints at its own size: none is taken for the layer's page at another scale (a 16:9
// photo page has nearly the proportions of the curtain turned, and would print at 440 %).
const LIMITS = { scaleTolerance: 0 };
const TOLERANCE = 0.15;
const MIN_FACTOR = 1.5;
const PASSES_JPEG = new Set(['reportlab', 'img2pdf', 'cairo', 'pikepdf', 'ghostscript']);

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)} %` : '—');

/** Checks every print file of the set; returns one row per file. */
export async function checkCameraSet(items, { threads = 2, onProgress } = {}) {
  const pool = new PreflightPool({ maxThreads: threads, taskTimeoutMs: 120_000 });
  const rows = [];
  let cpuMs = 0;
  try {
    for (const [i, item] of items.entries()) {
      const c0 = process.cpuUsage();
      let report;
      try {
        report = await preflight(item.pdf, TARGET, { pool, limits: LIMITS });
      } catch (error) {
        rows.push({ ...item, crashed: String(error?.message ?? error) });
        continue;
      }
      const c = process.cpuUsage(c0);
      cpuMs += (c.user + c.system) / 1000;
      const image = report.pages[0]?.images?.[0];
      const finding = report.findings.find((f) => f.code === 'image-upscaled');
      rows.push({
        ...item,
        filters: image?.filters ?? [],
        colourFamily: image?.colourFamily ?? null,
        bits: image?.bitsPerComponent ?? null,
        measured: image ? 'upscaleFactor' in image : false,
        estimate: image?.upscaleFactor ?? null,
        reported: finding ? finding.details.factor : null,
        nearest: finding?.details?.nearestNeighbour ?? null,
        jpegRead: image?.jpegQuality ?? null,
        findings: report.findings.map((f) => f.code),
      });
      onProgress?.(i + 1, items.length);
    }
  } finally {
    await pool.destroy();
  }
  return { rows, cpuMs };
}

/** The chain as readers see it: "A85+DCT", "Flate", "Flate 16-bit", "JPX", "DCT CMYK"… */
function chainOf(r) {
  const short = { ASCII85Decode: 'A85', ASCIIHexDecode: 'AHx', FlateDecode: 'Flate', DCTDecode: 'DCT', LZWDecode: 'LZW', RunLengthDecode: 'RL', JPXDecode: 'JPX' };
  const f = r.filters.map((x) => short[x] ?? x).join('+') || 'none';
  const extra = [r.bits === 16 ? '16-bit' : '', r.colourFamily && !['DeviceRGB', 'ICCBased'].includes(r.colourFamily) ? r.colourFamily.replace('Device', '') : ''].filter(Boolean);
  return [f, ...extra].join(' ');
}

/** Figures and the lines that print them. */
export function summariseCamera(rows, cpuMs) {
  const lines = [];
  const say = (...p) => lines.push(p.join(' '));
  const crashed = rows.filter((r) => r.crashed);
  const ok = rows.filter((r) => !r.crashed);
  const positives = ok.filter((r) => r.cls === 'upscaled');
  const zoomed = ok.filter((r) => r.cls === 'camera-zoom');
  const negatives = ok.filter((r) => r.cls !== 'upscaled' && r.cls !== 'camera-zoom');
  const mustReport = positives.filter((r) => r.factor >= MIN_FACTOR);
  const found = (r) => r.reported !== null;
  const close = (r) => r.reported !== null && Math.abs(r.reported / r.factor - 1) <= TOLERANCE;
  const fmt = (name, set) => {
    const hit = set.filter(found);
    return `${name.padEnd(28)} recall ${pct(hit.length, set.length).padStart(8)} (${hit.length}/${set.length})  factor within ±15 %: ${pct(hit.filter(close).length, hit.length).padStart(8)}`;
  };
  say(
    `image-upscaled on ${ok.length} print files (${positives.length} enlargements, ${negatives.length} negatives) from ${new Set(rows.map((r) => r.photo)).size} camera photos; ${crashed.length} crashed; CPU of the checking thread ${(cpuMs / Math.max(1, ok.length)).toFixed(0)} ms per file`,
  );
  const summary = { files: ok.length, crashed: crashed.length, byFactor: {}, byKind: {}, byChain: {}, byResampler: {}, byProducer: {}, negatives: {}, jpegQuality: {} };
  say('\nper factor and uploaded format (a finding is due from 1.5× on)');
  for (const f of [...new Set(positives.map((r) => r.factor))].sort((a, b) => a - b)) {
    for (const format of ['jpeg', 'png']) {
      const set = positives.filter((r) => r.factor === f && (r.image.endsWith('.png') ? 'png' : 'jpeg') === format);
      const hit = set.filter(found);
      summary.byFactor[`${f}x ${format}`] = { n: set.length, reported: hit.length, factorWithin15: hit.filter(close).length };
      if (f < MIN_FACTOR) {
        const est = set.filter((r) => r.estimate !== null);
        const near = est.filter((r) => Math.abs(r.estimate / f - 1) <= TOLERANCE).length;
        say(`  ${`${f}× ${format}`.padEnd(28)} not due; estimated ${pct(est.length, set.length)} (${near} within ±15 %), reported ${hit.length}`);
      } else say(`  ${fmt(`${f}× ${format}`, set)}`);
    }
  }
  const groupBy = (key, title, store) => {
    say(`\n${title} (enlargements of 1.5× and more)`);
    const keys = [...new Set(mustReport.map(key))].sort();
    for (const k of keys) {
      const set = mustReport.filter((r) => key(r) === k);
      store[k] = { n: set.length, reported: set.filter(found).length, factorWithin15: set.filter(close).length };
      say(`  ${fmt(k, set)}`);
    }
  };
  groupBy((r) => `${r.image.endsWith('.png') ? 'PNG' : 'JPEG'} as ${chainOf(r)}`, 'per image kind: uploaded format, as the producer wrote it', summary.byKind);
  groupBy((r) => r.resampler, 'per resampler', summary.byResampler);
  groupBy((r) => `${r.producer}${r.chainVariant ? `-${r.chainVariant}` : ''}`, 'per producer', summary.byProducer);
  say('\nnegatives: findings, and the detector’s own verdicts (≥ 1.5×, whatever the resolution)');
  for (const cls of [...new Set(negatives.map((r) => r.cls))]) {
    const set = negatives.filter((r) => r.cls === cls);
    const fp = set.filter(found);
    const est = set.filter((r) => r.estimate !== null && r.estimate >= MIN_FACTOR * (1 - TOLERANCE / 3));
    summary.negatives[cls] = { n: set.length, findings: fp.length, estimates: est.length, files: [...new Set([...fp, ...est].map((r) => `${r.name} ${r.estimate}`))] };
    say(`  ${cls.padEnd(12)} ${fp.length} findings, ${est.length} estimates of ${set.length}${est.length ? ` (${est.map((r) => `${r.name} ${r.estimate}×`).join(', ')})` : ''}`);
  }
  if (zoomed.length) {
    say(
      `\ncamera files taken with digital zoom (EXIF DigitalZoomRatio; positives, not in the figures above): ${zoomed.map((r) => `${r.name} zoom ${r.factor}: ${r.reported === null ? `estimate ${r.estimate ?? '—'}` : `reported ${r.reported}×`}`).join('; ')}`,
    );
    summary.cameraZoom = zoomed.map((r) => ({ name: r.name, zoom: r.factor, estimate: r.estimate, reported: r.reported }));
  }
  const goal2 = mustReport.filter((r) => r.factor >= 2);
  const goal15 = mustReport.filter((r) => r.factor === 1.5);
  const tp = positives.filter(found).length;
  const fpAll = negatives.filter(found).length;
  const detected = positives.filter(found);
  summary.goals = {};
  for (const format of ['jpeg', 'png']) {
    const is = (r) => (r.image.endsWith('.png') ? 'png' : 'jpeg') === format;
    const g2 = goal2.filter(is);
    const g15 = goal15.filter(is);
    summary.goals[format] = { recall2x: g2.filter(found).length / g2.length, recall15: g15.filter(found).length / g15.length, n2: g2.length, n15: g15.length };
    say(
      `\n${format.toUpperCase()}: recall at ≥ 2× ${pct(g2.filter(found).length, g2.length)} (${g2.filter(found).length}/${g2.length}); at 1.5× ${pct(g15.filter(found).length, g15.length)} (${g15.filter(found).length}/${g15.length})`,
    );
  }
  summary.goals.precision = tp / Math.max(1, tp + fpAll);
  summary.goals.factorWithin15 = detected.filter(close).length / Math.max(1, detected.length);
  say(
    `precision ${pct(tp, tp + fpAll)} (${fpAll} false findings of ${negatives.length} negatives); factor within ±15 %: ${pct(detected.filter(close).length, detected.length)} (${detected.filter(close).length}/${detected.length})`,
  );

  say('\nimage-jpeg-quality: quality read against the encoder’s setting (JPEGs that reach the PDF unchanged)');
  const jpegs = ok.filter((r) => r.quality && r.image.endsWith('.jpg') && PASSES_JPEG.has(r.producer) && !['jpx', 'cmyk', 'gray', 'indexed'].includes(r.chainVariant));
  for (const encoder of [...new Set(jpegs.map((r) => r.encoder))].sort()) {
    const set = jpegs.filter((r) => r.encoder === encoder);
    const errs = set.map((r) => (r.jpegRead === null ? Infinity : Math.abs(r.jpegRead - r.quality)));
    const within2 = errs.filter((e) => e <= 2).length;
    summary.jpegQuality[encoder] = { n: set.length, within2, exactly: errs.filter((e) => e === 0).length, maxError: Math.max(0, ...errs) };
    say(`  ${encoder.padEnd(14)} ${within2}/${set.length} within ±2 (${errs.filter((e) => e === 0).length} exact), max error ${Math.max(0, ...errs)}`);
  }
  if (crashed.length) say(`\ncrashed: ${crashed.map((r) => `${r.name}: ${r.crashed}`).join('; ')}`);
  return { lines, summary };
}

// `node bench/quality-camera.mjs DIR` checks a set made by bench/quality-set.mjs in DIR.
if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? new URL('./inputs/quality-camera', import.meta.url).pathname;
  const items = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8'));
  const only = process.env.QUALITY_ONLY ? new RegExp(process.env.QUALITY_ONLY) : null;
  const { rows, cpuMs } = await checkCameraSet(only ? items.filter((i) => only.test(i.name)) : items, { onProgress: (i, n) => process.stderr.write(`\r${i}/${n}`) });
  process.stderr.write('\n');
  const { lines, summary } = summariseCamera(rows, cpuMs);
  console.log(lines.join('\n'));
  if (process.env.QUALITY_ROWS) (await import('node:fs')).writeFileSync(process.env.QUALITY_ROWS, JSON.stringify({ summary, rows }, null, 1));
}
