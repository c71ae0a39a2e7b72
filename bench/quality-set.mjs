/**
 * Issue 36's evaluation set for bench:quality: print files made from camera photos of public test
 * suites (bench/quality-photos.json: repository, path, commit, SHA-256, licence; read from bare git
 * mirrors as the `fetch` tool leaves them in /work/.mirror, or QUALITY_MIRROR), never committed.
 *
 * From each photo:
 * - negatives: the camera's own file (a crop of at most 2,400 px, JPEG cropped losslessly with
 *   jpegtran) — a positive when its EXIF says it was taken with digital zoom; a native picture (reduced with Lanczos to about 1,000 px, so that every pixel carries
 *   detail) saved as PNG and as JPEG; the native blurred (σ 1) and sharpened (unsharp mask);
 * - positives: the native (a crop, so that the enlargement stays within 3,200 px) enlarged 1.25×,
 *   1.5×, 2×, 3× and 4× by two of twelve resamplers each (PIL nearest, bilinear, bicubic, Lanczos;
 *   ImageMagick Catrom, Mitchell, Lanczos, Triangle; sharp lanczos3, mitchell, cubic, nearest),
 *   in turn; some ImageMagick ones at 16 bits per sample;
 * - every JPEG saved by one of four encoders in turn (ImageMagick and PIL: libjpeg tables; sharp:
 *   libjpeg tables; sharp with mozjpeg's tables) at a quality from 70 to 95 in turn;
 * and each image put on a page of its own by one of six producers in turn: reportlab (JPEG behind
 * ASCII85; PNG as Flate), img2pdf (bare DCT; PNG with predictors, 16-bit too), ImageMagick (DCT,
 * Flate, LZW, CMYK), Ghostscript (pdfwrite of an img2pdf file: its JPEG passed through, its PNG
 * re-encoded as it decides), cairo (PNG as Flate, JPEG passed through) and pikepdf (Flate, PNG
 * predictors, ASCII85 + Flate, ASCII85 + DCT, Indexed, CMYK, gray, JPEG 2000). Positives are
 * placed at 120–145 ppi (so that their detail falls below 100 ppi from 1.5× on), negatives at
 * 120–300 ppi.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

export const FACTORS = [1.25, 1.5, 2, 3, 4];
export const RESAMPLERS = [
  'pil-nearest',
  'im-catrom',
  'sharp-lanczos3',
  'pil-bilinear',
  'im-mitchell',
  'sharp-nearest',
  'pil-bicubic',
  'im-lanczos',
  'sharp-mitchell',
  'pil-lanczos',
  'im-triangle',
  'sharp-cubic',
];
const ENCODERS = ['im', 'pil', 'sharp', 'sharp-mozjpeg'];
const QUALITIES = [70, 75, 80, 85, 90, 95];
const PRODUCERS = ['reportlab', 'img2pdf', 'imagemagick', 'ghostscript', 'cairo', 'pikepdf'];
const PIKEPDF_PNG = ['flate', 'png-predictor', 'a85-flate', 'indexed', 'cmyk', 'gray', 'jpx'];
const IM_VARIANTS = ['', 'lzw', 'cmyk'];
const NATIVE_SIDES = [896, 960, 1024, 1088, 1152];
const MAX_OUT = 3200;
const CAMERA_MAX = 2400;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** ImageMagick with a policy that allows print sizes (Debian's caps them far lower). */
function magick(out, args) {
  const policy = join(out, 'magick');
  if (!existsSync(join(policy, 'policy.xml'))) {
    mkdirSync(policy, { recursive: true });
    writeFileSync(
      join(policy, 'policy.xml'),
      '<policymap><policy domain="resource" name="memory" value="4GiB"/><policy domain="resource" name="map" value="4GiB"/><policy domain="resource" name="area" value="1GP"/><policy domain="resource" name="width" value="64KP"/><policy domain="resource" name="height" value="64KP"/><policy domain="coder" rights="read|write" pattern="PDF"/></policymap>',
    );
  }
  execFileSync('nice', ['-n', '10', '/usr/bin/convert', ...args], { env: { ...process.env, MAGICK_CONFIGURE_PATH: policy }, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The EXIF DigitalZoomRatio of a camera file (ImageMagick reads it), 1 when absent or 0. */
function digitalZoom(file) {
  try {
    const v = execFileSync('/usr/bin/identify', ['-format', '%[EXIF:DigitalZoomRatio]', `${file}[0]`], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const [a, b] = v.split('/').map(Number);
    const zoom = b ? a / b : a;
    return Number.isFinite(zoom) && zoom > 0 ? zoom : 1;
  } catch {
    return 1;
  }
}

/** One long-lived Debian python3 running bench/quality-make.py (PIL resizing and encoding, img2pdf). */
export function pythonHelper() {
  const child = spawn('nice', ['-n', '10', '/usr/bin/python3', new URL('./quality-make.py', import.meta.url).pathname], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  return {
    run(job) {
      return new Promise((resolve, reject) => {
        waiting.push((line) => (line === 'ok' ? resolve() : reject(new Error(`${job.op} ${job.dst}: ${line}`))));
        child.stdin.write(`${JSON.stringify(job)}\n`);
      });
    },
    close: () => child.stdin.end(),
  };
}

/** Writes `dst` once: work is skipped when the file is there (an interrupted run resumes). */
export async function once(dst, make) {
  if (existsSync(dst)) return;
  const tmp = `${dst}.part${dst.slice(dst.lastIndexOf('.'))}`;
  await make(tmp);
  renameSync(tmp, dst);
}

async function encodeJpeg(py, out, src, dst, encoder, quality) {
  await once(dst, async (tmp) => {
    if (encoder === 'im') magick(out, [src, '-quality', String(quality), tmp]);
    else if (encoder === 'pil') await py.run({ op: 'encode', src, dst: tmp, quality });
    else
      await sharp(src)
        .jpeg({ quality, mozjpeg: encoder === 'sharp-mozjpeg' })
        .toFile(tmp);
  });
}

async function enlarge(py, out, src, dst, resampler, w, h, depth16) {
  await once(dst, async (tmp) => {
    const [family, kernel] = resampler.split(/-(.*)/s);
    if (family === 'pil') await py.run({ op: 'resize', src, dst: tmp, w, h, filter: kernel });
    else if (family === 'im') {
      const filter = { catrom: 'Catrom', mitchell: 'Mitchell', lanczos: 'Lanczos', triangle: 'Triangle' }[kernel];
      magick(out, [src, ...(depth16 ? ['-depth', '16'] : []), '-filter', filter, '-resize', `${w}x${h}!`, ...(depth16 ? ['-depth', '16'] : []), `PNG${depth16 ? '48' : '24'}:${tmp}`]);
    } else await sharp(src).resize(w, h, { kernel, fit: 'fill' }).png().toFile(tmp);
  });
}

async function makePdf(py, out, item) {
  await once(item.pdf, async (tmp) => {
    const { producer, image, ppi } = item;
    if (producer === 'imagemagick') {
      const variant = item.chainVariant;
      magick(out, [
        image,
        ...(variant === 'cmyk' ? ['-colorspace', 'CMYK'] : []),
        ...(variant === 'lzw' ? ['-compress', 'LZW'] : []),
        '-units',
        'PixelsPerInch',
        '-density',
        String(ppi),
        `PDFA:${tmp}`,
      ]); // Debian's policy refuses the PDF coder by name, not PDFA
    } else if (producer === 'ghostscript') {
      const mid = `${tmp}.img2pdf.pdf`;
      await py.run({ op: 'pdf', producer: 'img2pdf', src: image, dst: mid, ppi });
      execFileSync('nice', ['-n', '10', 'gs', '-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', `-sOutputFile=${tmp}`, mid]);
      rmSync(mid);
    } else {
      await py.run({ op: 'pdf', producer: producer === 'pikepdf' ? `pikepdf-${item.chainVariant}` : producer, src: image, dst: tmp, ppi });
    }
  });
}

/**
 * Makes (or completes) the set under `out` and returns its items: one per print file, with the
 * image it carries and what is true of it (cls, factor, resampler, encoder, quality, producer).
 */
export async function makeCameraSet(out, mirror = process.env.QUALITY_MIRROR ?? '/work/.mirror') {
  const manifest = JSON.parse(readFileSync(new URL('./quality-photos.json', import.meta.url), 'utf8'));
  for (const dir of ['src', 'img', 'pdf']) mkdirSync(join(out, dir), { recursive: true });
  const py = pythonHelper();
  const items = [];
  let turn = 0; // everything that rotates (encoder, quality, producer) advances with it
  // Each choice turns at its own pace, so that encoder, quality and producer are not tied together.
  const next = (list) => list[(list === QUALITIES ? Math.floor(turn / 7) : list === ENCODERS ? Math.floor(turn / 3) : turn) % list.length];
  try {
    const limit = Number(process.env.QUALITY_PHOTOS ?? manifest.photos.length);
    for (const [n, photo] of manifest.photos.slice(0, limit).entries()) {
      const id = `c${String(n).padStart(2, '0')}`;
      const ext = photo.path.slice(photo.path.lastIndexOf('.')).toLowerCase();
      const original = join(out, 'src', `${id}${ext}`);
      if (!existsSync(original)) {
        const bytes = execFileSync('git', ['-C', join(mirror, photo.repo.replace('/', '+'), 'repo'), 'show', `${photo.commit}:${photo.path}`], { maxBuffer: 1 << 28 });
        if (sha256(bytes) !== photo.sha256) throw new Error(`${photo.repo}/${photo.path}: SHA-256 differs from bench/quality-photos.json`);
        writeFileSync(original, bytes);
      }
      const upright = join(out, 'src', `${id}-upright.png`);
      await once(upright, (tmp) => sharp(original, { failOn: 'none' }).rotate().toColourspace('srgb').removeAlpha().png().toFile(tmp));
      const meta = await sharp(upright).metadata();
      const label = { photo: `${photo.repo}/${photo.path}` };
      const add = (item) => {
        const chain = chainFor(item);
        items.push({ ...label, ...item, ...chain, pdf: join(out, 'pdf', `${item.name}.pdf`) });
        turn++;
      };
      const chainFor = (item) => {
        const png = item.image.endsWith('.png');
        const producer = item.producer ?? next(PRODUCERS);
        let chainVariant = '';
        if (producer === 'pikepdf') chainVariant = png ? PIKEPDF_PNG[Math.floor(turn / PRODUCERS.length) % PIKEPDF_PNG.length] : 'a85-dct';
        if (producer === 'imagemagick') chainVariant = IM_VARIANTS[Math.floor(turn / PRODUCERS.length) % IM_VARIANTS.length];
        return { producer, chainVariant, ppi: item.cls === 'upscaled' ? 120 + ((turn * 7) % 26) : 120 + ((turn * 37) % 181) };
      };

      // The camera's own file: a crop without resampling (JPEG cropped losslessly).
      const cameraJpeg = ext === '.jpg' || ext === '.jpeg';
      const camera = join(out, 'img', `${id}-camera${cameraJpeg ? '.jpg' : '.png'}`);
      await once(camera, async (tmp) => {
        const w = Math.min(meta.width, CAMERA_MAX);
        const h = Math.min(meta.height, CAMERA_MAX);
        const left = Math.floor((meta.width - w) / 32) * 16;
        const top = Math.floor((meta.height - h) / 32) * 16;
        const raw = await sharp(original, { failOn: 'none' }).metadata();
        if (cameraJpeg && (raw.orientation ?? 1) === 1 && raw.space !== 'cmyk') {
          if (w === meta.width && h === meta.height) writeFileSync(tmp, readFileSync(original));
          else execFileSync('jpegtran', ['-copy', 'none', '-crop', `${w}x${h}+${left}+${top}`, '-outfile', tmp, original]);
        } else if (cameraJpeg) await sharp(upright).extract({ left, top, width: w, height: h }).jpeg({ quality: 92 }).toFile(tmp);
        else await sharp(upright).extract({ left, top, width: w, height: h }).png().toFile(tmp);
      });
      // A camera's digital zoom is an enlargement (an iPhone 6 at 1.97× zoom reads as 1.97×): such
      // files are positives, by the factor their EXIF says.
      const zoom = digitalZoom(original);
      if (zoom > 1.05) add({ name: `${id}-camera`, image: camera, cls: 'camera-zoom', factor: Math.round(zoom * 100) / 100 });
      else add({ name: `${id}-camera`, image: camera, cls: 'camera', factor: 1 });

      // The native picture: every pixel carries detail.
      const side = NATIVE_SIDES[n % NATIVE_SIDES.length];
      const reduce = Math.max(meta.width, meta.height) > 1.25 * side;
      const native = join(out, 'img', `${id}-native.png`);
      await once(native, (tmp) => (reduce ? sharp(upright).resize(side, side, { fit: 'inside', kernel: 'lanczos3' }).png().toFile(tmp) : sharp(upright).png().toFile(tmp)));
      const nm = await sharp(native).metadata();
      add({ name: `${id}-native-png`, image: native, cls: 'native', factor: 1, reduced: reduce });
      {
        const encoder = next(ENCODERS);
        const quality = next(QUALITIES);
        const image = join(out, 'img', `${id}-native-${encoder}-q${quality}.jpg`);
        await encodeJpeg(py, out, native, image, encoder, quality);
        add({ name: `${id}-native-jpeg`, image, cls: 'native', factor: 1, encoder, quality, reduced: reduce });
      }
      {
        const image = join(out, 'img', `${id}-blurred.jpg`);
        await once(image, (tmp) => sharp(native).blur(1).jpeg({ quality: 90 }).toFile(tmp));
        add({ name: `${id}-blurred`, image, cls: 'blurred σ1', factor: 1, encoder: 'sharp', quality: 90 });
      }
      {
        const image = join(out, 'img', `${id}-sharpened.jpg`);
        await once(image, (tmp) => magick(out, [native, '-unsharp', '0x1+1+0', '-quality', '85', tmp]));
        add({ name: `${id}-sharpened`, image, cls: 'sharpened', factor: 1, encoder: 'im', quality: 85 });
      }

      // Enlargements.
      for (const [k, factor] of FACTORS.entries()) {
        const maxSide = Math.floor(MAX_OUT / factor);
        const cw = Math.min(nm.width, maxSide);
        const ch = Math.min(nm.height, maxSide);
        const crop = join(out, 'img', `${id}-crop${cw}x${ch}.png`);
        await once(crop, (tmp) =>
          cw === nm.width && ch === nm.height
            ? sharp(native).png().toFile(tmp)
            : sharp(native)
                .extract({ left: (nm.width - cw) >> 1, top: (nm.height - ch) >> 1, width: cw, height: ch })
                .png()
                .toFile(tmp),
        );
        const w = Math.round(cw * factor);
        const h = Math.round(ch * factor);
        for (let r = 0; r < 2; r++) {
          const resampler = RESAMPLERS[(n * 5 + k * 2 + r) % RESAMPLERS.length];
          const png = (n + k + r) % 2 === 0;
          const depth16 = png && resampler.startsWith('im-') && (n + k) % 3 === 0;
          const base = `${id}-up${factor}-${resampler}`;
          const enlarged = join(out, 'img', `${base}${depth16 ? '-16bit' : ''}.png`);
          await enlarge(py, out, crop, enlarged, resampler, w, h, depth16);
          if (png) {
            add({ name: base, image: enlarged, cls: 'upscaled', factor, resampler, bits: depth16 ? 16 : 8, ...(depth16 ? { producer: 'img2pdf' } : {}) });
          } else {
            const encoder = next(ENCODERS);
            const quality = next(QUALITIES);
            const image = join(out, 'img', `${base}-${encoder}-q${quality}.jpg`);
            await encodeJpeg(py, out, enlarged, image, encoder, quality);
            add({ name: base, image, cls: 'upscaled', factor, resampler, encoder, quality });
          }
        }
      }
      process.stderr.write(`\r${id}: ${items.length} images`);
    }
    process.stderr.write('\n');
    for (const [i, item] of items.entries()) {
      await makePdf(py, out, item);
      if (i % 20 === 0) process.stderr.write(`\rPDFs: ${i + 1}/${items.length}`);
    }
    process.stderr.write('\n');
  } finally {
    py.close();
  }
  const manifestOut = items.map((i) => ({ ...i, imageSha256: sha256(readFileSync(i.image)), pdfSha256: sha256(readFileSync(i.pdf)) }));
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifestOut, null, 1)}\n`);
  return manifestOut;
}

// `node bench/quality-set.mjs [OUT]` makes the set alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? new URL('./inputs/quality-camera', import.meta.url).pathname;
  const items = await makeCameraSet(out);
  console.log(`${items.length} print files in ${out}`);
}
