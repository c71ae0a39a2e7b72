/**
 * sharp, loaded by the first image operation that needs it (a JPEG or Flate page drawn from its
 * image, a WebP preview): a check of vector pages with PNG previews never loads libvips (~170 ms of
 * CPU in every process or worker that would). Its operation cache is off: it would keep decoded
 * images of earlier pages alive, and pages are drawn one at a time.
 */
type Sharp = typeof import('sharp').default;
let loaded: Promise<Sharp> | undefined;

export function loadSharp(): Promise<Sharp> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

/** sharp when something in this thread has loaded it already (a JPEG decoded), else undefined. */
export function loadedSharp(): Promise<Sharp> | undefined {
  return loaded;
}
