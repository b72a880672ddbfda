/** "Did you mean ...?": the known word a typed one is a typo of. */
/**
 * The word of `candidates` nearest to `word` (fewest single-letter edits, upper and lower case alike),
 * if it is near enough to be a typo (at most a third of its letters, and at most 3) rather than
 * another word.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  return best !== undefined && best.distance <= Math.min(3, Math.max(1, Math.floor(best.candidate.length / 3))) ? best.candidate : undefined;
}

/** Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours, one each. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      let distance = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, (before[j - 2] ?? 0) + 1);
      current.push(distance);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
