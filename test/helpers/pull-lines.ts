/**
 * A pull's NDJSON as what `ocf-sync pull` promises about its order (docs/cli.md): each issuer's lines
 * together, and within an issuer each list in the service's order, the valid lines before the
 * quarantined ones. How an issuer's two lists interleave is not promised: they are paged at once and
 * each page is written as it arrives, so under load a second page of awards can come before the first
 * page of units. Comparing two pulls byte for byte then fails with the moved page shown as 30 lines
 * added where it now stands (and 30 removed further on, easy to miss in a long diff), which reads as
 * a page written twice.
 */

/** One issuer's run of lines in a pull's NDJSON, each line with its `\n`. */
export interface IssuerLines {
  issuerId: string;
  awards: string[];
  units: string[];
  quarantined: string[];
}

interface Line {
  kind: string;
  issuerId: string;
  quarantined?: true;
}

/** The lines of `text`, each with its `\n`. */
export const linesOf = (text: string): string[] => text.split(/(?<=\n)/).filter((line) => line !== "");

/**
 * The runs of issuers in `text`, in the order written: an issuer whose lines are not together has two
 * runs. Throws for a valid line after a quarantined one of the same run.
 */
export function issuerRuns(text: string): IssuerLines[] {
  const runs: IssuerLines[] = [];
  for (const raw of linesOf(text)) {
    const line = JSON.parse(raw) as Line;
    let run = runs.at(-1);
    if (run?.issuerId !== line.issuerId) {
      run = { issuerId: line.issuerId, awards: [], units: [], quarantined: [] };
      runs.push(run);
    }
    if (line.quarantined === true) run.quarantined.push(raw);
    else if (run.quarantined.length > 0) throw new Error(`a valid line of issuer ${line.issuerId} after its quarantined ones: ${raw}`);
    else (line.kind === "restrictedStockAward" ? run.awards : run.units).push(raw);
  }
  return runs;
}
