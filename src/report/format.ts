import { formatNumber } from '../pdf/units.js';

/**
 * The one way a file size is written, in the terminal and in HTML: "812 bytes", "3.1 kB",
 * "48.2 MB" (decimal units, as the service's 50 MB limit is 50,000,000 bytes).
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 999_950) return `${formatNumber(bytes / 1000, 1)} kB`;
  if (bytes < 999_950_000) return `${formatNumber(bytes / 1_000_000, 1)} MB`;
  return `${formatNumber(bytes / 1_000_000_000, 1)} GB`;
}
