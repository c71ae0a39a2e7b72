/** Debian's Chromium, headless, dumping the DOM of a page after its scripts ran (up to 10 s of page time). */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, no sandbox (root), and none of the background connections this closed network refuses. */
export function headlessArgs(profileDir: string): string[] {
  return ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${profileDir}`];
}

export function dumpDomArgs(profileDir: string, url: string): string[] {
  return [...headlessArgs(profileDir), '--virtual-time-budget=10000', '--dump-dom', url];
}
