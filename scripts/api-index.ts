/**
 * The landing page of the API reference (docs/api-index.md, TypeDoc's `readme`): the README's
 * "## Library" section, its library quick start, so the reference opens where a library user starts
 * and the two never drift. `npm run docs` writes it before TypeDoc runs (scripts/write-api-index.ts),
 * and test/unit/api-index.test.ts fails when the committed page differs from what this returns.
 */

/** The page, from the repository's root. */
export const API_INDEX_PAGE = "docs/api-index.md";

const SECTION = "## Library";

/** The page made from the text of README.md. */
export function apiIndexPage(readme: string): string {
  const lines = readme.split("\n");
  const start = lines.findIndex((line) => line.trim() === SECTION);
  if (start < 0) throw new Error(`README.md has no "${SECTION}" section`);
  const end = lines.findIndex((line, at) => at > start && /^#{1,2} /.test(line));
  const body = lines.slice(start + 1, end < 0 ? undefined : end).join("\n").trim();
  return [
    "<!-- Generated from README.md's \"## Library\" section by `npm run docs` (scripts/write-api-index.ts); do not edit. -->",
    "",
    "# ocf-sync",
    "",
    body.replace(/\]\(([^)#][^)]*)\)/g, (link, target: string) => `](${fromDocs(target)})`),
    "",
    "The reference is grouped by job: Client, Source, Mapping, OCF, Export, Reconcile, Sync, Errors and Testing.",
    "",
  ].join("\n");
}

/** A link of the README (relative to the root) as seen from docs/. */
function fromDocs(target: string): string {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return target;
  return target.startsWith("docs/") ? target.slice("docs/".length) : `../${target}`;
}
