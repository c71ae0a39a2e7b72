/**
 * JPEG 2000 pixels for the detail measurement, through the OpenJPEG build that pdf.js ships
 * (pdfjs-dist's image decoders and its openjpeg.wasm): no native decoder is added. The whole
 * image is decoded (JPEG 2000 has no rows to stop at), so callers bound its size first.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface JpxDecoder {
  decode(bytes: Uint8Array, options: { numComponents?: number; isIndexedColormap?: boolean; smaskInData?: boolean; reducePower?: number }): Promise<Uint8Array | Uint8ClampedArray>;
  setOptions(options: { handler: unknown; useWasm: boolean; useWorkerFetch: boolean; wasmUrl: string }): void;
}

let loaded: Promise<JpxDecoder> | undefined;

async function decoder(): Promise<JpxDecoder> {
  loaded ??= (async () => {
    const lib = (await import('pdfjs-dist/legacy/image_decoders/pdf.image_decoders.mjs' as string)) as { JpxImage: JpxDecoder };
    const wasmDir = join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'wasm');
    // The wasm is read from disk here (pdf.js would fetch it from a URL in a browser).
    const handler = { sendWithPromise: async (_: string, { filename }: { filename: string }) => new Uint8Array(await readFile(join(wasmDir, filename))) };
    lib.JpxImage.setOptions({ handler, useWasm: true, useWorkerFetch: false, wasmUrl: `${wasmDir}/` });
    return lib.JpxImage;
  })();
  return loaded;
}

/**
 * Decodes a JPEG 2000 codestream or JP2 file to interleaved 8-bit samples: `wanted` components per
 * pixel (1, 3 or 4) as pdf.js asks OpenJPEG for them, or what the image holds when 0 — an RGB
 * image may come back with an alpha channel, so the result says how many it has.
 */
export async function decodeJpx(bytes: Uint8Array, widthPx: number, heightPx: number, wanted = 0): Promise<{ data: Uint8Array | Uint8ClampedArray; components: number }> {
  const jpx = await decoder();
  const data = await jpx.decode(bytes, { numComponents: wanted });
  const components = Math.round(data.length / (widthPx * heightPx));
  if (components < 1 || components * widthPx * heightPx !== data.length) throw new Error(`its JPEG 2000 data decodes to ${data.length} bytes, not a multiple of ${widthPx} × ${heightPx} pixels`);
  return { data, components };
}
