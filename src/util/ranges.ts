/** Page lists for people: "1–4, 7, 9–12", summarised when long. */
import { grouped } from './text.js';

/** Consecutive runs of sorted, distinct 1-based numbers: [[1, 4], [7, 7], [9, 12]]. */
export function runsOf(numbers: Iterable<number>): [number, number][] {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const n of sorted) {
    const last = runs[runs.length - 1];
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  return runs;
}

/**
 * "1–4, 7, 9–12". With more than `maxRuns` runs, the first ones and a count:
 * "1, 3, 5, … (10,000 pages)".
 */
export function formatRanges(numbers: Iterable<number>, maxRuns = 8): string {
  const runs = runsOf(numbers);
  const text = (r: [number, number]) => (r[0] === r[1] ? grouped(r[0]) : `${grouped(r[0])}–${grouped(r[1])}`);
  if (runs.length <= maxRuns) return runs.map(text).join(', ');
  const count = runs.reduce((n, r) => n + r[1] - r[0] + 1, 0);
  return `${runs.slice(0, maxRuns).map(text).join(', ')}, … (${grouped(count)} pages)`;
}

/** "page 3", "pages 1–4", "pages 1, 3" */
export function pagesLabel(numbers: Iterable<number>, maxRuns = 8): string {
  const list = [...new Set(numbers)];
  return `${list.length === 1 ? 'page' : 'pages'} ${formatRanges(list, maxRuns)}`;
}
