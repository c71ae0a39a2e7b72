/** "Did you mean …?": the nearest known word by edit distance, for verbs, flags, SKUs and ids. */

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) d[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The known word nearest to `word`, when it is near enough to be a typo (at most a third of the
 * word's length, at least 1, at most 3 edits); ties go to the first in `known`. Null otherwise.
 */
export function nearest(word: string, known: Iterable<string>): string | null {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    if (k.toLowerCase() === word.toLowerCase()) return k;
    const dist = editDistance(word, k);
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  return bestDistance <= limit ? best : null;
}

/** " (did you mean "check"?)" or "". */
export function didYouMean(word: string, known: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const hit = nearest(word, known);
  return hit ? ` (did you mean ${quote(hit)}?)` : '';
}
