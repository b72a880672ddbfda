/**
 * Every relative link of the README, CONTRIBUTING.md and the pages in docs/ leads somewhere: the file
 * exists, and a `#anchor` names a heading of that page as GitHub renders it. Links to other sites are not
 * followed (no network in tests).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, "docs/commands")).filter((f) => f.endsWith(".md")).map((f) => `docs/commands/${f}`),
];

/** A page's text with its fenced code blocks blanked out (a link in code is not a link). */
function withoutCode(markdown: string): string {
  let fenced = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (line.trimStart().startsWith("```")) {
        fenced = !fenced;
        return "";
      }
      return fenced ? "" : line.replace(/`[^`]*`/g, "");
    })
    .join("\n");
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  page: string;
  target: string;
}

function relativeLinks(page: string): Link[] {
  const text = withoutCode(readFileSync(join(ROOT, page), "utf8"));
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ page, target }));
}

/** Why a link leads nowhere, or undefined when it leads somewhere. */
function brokenBecause({ page, target }: Link): string | undefined {
  const [path, anchor] = target.split("#", 2) as [string, string | undefined];
  const file = path === "" ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined || anchor === "" || !file.endsWith(".md")) return undefined;
  return headingAnchors(readFileSync(file, "utf8")).has(anchor) ? undefined : `${relative(ROOT, file)} has no heading #${anchor}`;
}

describe("the documentation's links", () => {
  it("reads GitHub's anchors from headings", () => {
    const anchors = headingAnchors("# `ocf-sync export`\n\n## Exit statuses, deadlines & signals\n## Notes\n## Notes\n```\n# not a heading\n```");
    expect([...anchors]).toEqual(["ocf-sync-export", "exit-statuses-deadlines--signals", "notes", "notes-1"]);
  });

  it("finds links outside code and skips other sites", () => {
    expect(relativeLinks("README.md").length).toBeGreaterThan(5);
    expect(brokenBecause({ page: "README.md", target: "docs/no-such-page.md" })).toBe("docs/no-such-page.md does not exist");
    expect(brokenBecause({ page: "README.md", target: "docs/cli.md#no-such-heading" })).toBe("docs/cli.md has no heading #no-such-heading");
  });

  it.each(PAGES)("%s: every relative link leads to a file and heading that exist", (page) => {
    const broken = relativeLinks(page)
      .map((link) => ({ target: link.target, because: brokenBecause(link) }))
      .filter((b) => b.because !== undefined);
    expect(broken).toEqual([]);
  });
});
