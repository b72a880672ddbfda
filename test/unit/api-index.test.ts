/** The API reference's landing page (docs/api-index.md) is the README's "## Library" section, as generated. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { API_INDEX_PAGE, apiIndexPage } from "../../scripts/api-index.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("docs/api-index.md", () => {
  it("is what README.md's Library section generates", () => {
    const expected = apiIndexPage(readFileSync(resolve(ROOT, "README.md"), "utf8"));
    expect(readFileSync(resolve(ROOT, API_INDEX_PAGE), "utf8"), "docs/api-index.md is out of date: run `npm run docs`").toBe(expected);
  });

  it("is TypeDoc's landing page", () => {
    expect(JSON.parse(readFileSync(resolve(ROOT, "typedoc.json"), "utf8"))).toMatchObject({ readme: API_INDEX_PAGE });
  });

  it("takes the section alone, with its links made relative to docs/", () => {
    const readme = "# x\n\n## Install\n\nINSTALL-TEXT\n\n## Library\n\nSee [the page](docs/library.md), [ops](CONTRIBUTING.md) and [ky](https://github.com/sindresorhus/ky).\n\n## More\n\nREST-TEXT\n";
    const page = apiIndexPage(readme);
    expect(page).toContain("See [the page](library.md), [ops](../CONTRIBUTING.md) and [ky](https://github.com/sindresorhus/ky).");
    expect(page).not.toContain("INSTALL-TEXT");
    expect(page).not.toContain("REST-TEXT");
    expect(() => apiIndexPage("# x\n")).toThrow(/no "## Library" section/);
  });
});
