/** Debian's Chromium, headless, dumping the DOM of a page after its scripts ran (up to 10 s of page time). */
export const CHROMIUM = '/usr/bin/chromium';

export function dumpDomArgs(profileDir: string, url: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    `--user-data-dir=${profileDir}`,
    '--virtual-time-budget=10000',
    '--dump-dom',
    url,
  ];
}
