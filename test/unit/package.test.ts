/**
 * The package as published: metadata a registry and a user need, nothing that runs in a user's
 * install, a tarball without what does not run, and golden packages whose bytes no checkout converts.
 * (`npm run check:package` packs and installs it for real; that needs the registry, these do not.)
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { validatePackageAt } from "../../src/ocf/validate-package.js";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

interface PackageJson {
  name: string;
  license: string;
  repository: { type: string; url: string };
  homepage: string;
  bugs: { url: string };
  engines: { node: string };
  type: string;
  exports: Record<string, unknown>;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
}

const packageJson = async (): Promise<PackageJson> => JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as PackageJson;

describe("package.json", () => {
  it("says where the project lives and under which license", async () => {
    const pkg = await packageJson();
    expect(pkg.license).toBe("MIT");
    expect(pkg.repository).toEqual({ type: "git", url: "git+https://github.com/ocf-sync/ocf-sync.git" });
    expect(pkg.homepage).toBe("https://github.com/ocf-sync/ocf-sync#readme");
    expect(pkg.bugs).toEqual({ url: "https://github.com/ocf-sync/ocf-sync/issues" });
    const license = await readFile(join(ROOT, "LICENSE"), "utf8");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} ocf-sync contributors\n/);
    expect(await readFile(join(ROOT, "CHANGELOG.md"), "utf8")).toContain("## [0.1.0]");
  });

  it("runs no script in a user's install, and builds only when packing", async () => {
    const { scripts } = await packageJson();
    for (const hook of ["preinstall", "install", "postinstall", "prepare"]) expect(scripts, hook).not.toHaveProperty(hook);
    expect(scripts.prepack).toBe("npm run build");
  });

  it("ships what runs: dist, the command, the sample data; no golden packages, sources or scripts", async () => {
    const pkg = await packageJson();
    expect(pkg.files).toEqual(["dist", "bin", "samples/api/*.json", "schemas", "CHANGELOG.md"]);
    expect(pkg.exports).toEqual({
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
      "./testing": { types: "./dist/testing.d.ts", default: "./dist/testing.js" },
      "./package.json": "./package.json",
      "./schemas/*.schema.json": "./schemas/*.schema.json",
    });
    // Types first in each entry point, as TypeScript reads the conditions in order.
    for (const entry of [".", "./testing"]) expect(Object.keys(pkg.exports[entry] as object)[0], entry).toBe("types");
    expect(pkg.type).toBe("module");
    const build = JSON.parse(await readFile(join(ROOT, "tsconfig.build.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
    // Maps would point at sources the tarball does not hold.
    expect(build.compilerOptions).toMatchObject({ sourceMap: false, declarationMap: false });
  });
});

describe("the golden packages in git", () => {
  it("keep their exact bytes (and so their MD5 sums) in a checkout that converts line endings", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ocf-sync-crlf-"));
    try {
      // A clone as Windows' git makes it by default: text files get CRLF endings in the checkout.
      await run("git", ["clone", "--quiet", "-c", "core.autocrlf=true", "-c", "core.eol=crlf", ROOT, join(dir, "clone")]);
      const git = (...args: string[]) => run("git", ["-C", join(dir, "clone"), ...args]);
      const golden = join(dir, "clone", "samples", "ocf");
      const folders = await readdir(golden, { withFileTypes: true });
      expect(folders.filter((f) => f.isDirectory()).length).toBe(5);
      for (const folder of folders.filter((f) => f.isDirectory())) {
        const report = await validatePackageAt(join(golden, folder.name));
        expect(report.problems, folder.name).toEqual([]);
        for (const file of await readdir(join(golden, folder.name))) {
          expect((await readFile(join(golden, folder.name, file))).includes("\r\n"), `${folder.name}/${file}`).toBe(false);
        }
      }
      // With no attribute for it (as in a repository without .gitattributes), the same clone converts a
      // golden file and breaks its sum: the test above can fail.
      await writeFile(join(dir, "clone", ".git", "info", "attributes"), "samples/ocf/7/Transactions.ocf.json text=auto !eol\n");
      await rm(join(golden, "7", "Transactions.ocf.json"));
      await git("checkout", "--quiet", "HEAD", "--", "samples/ocf/7/Transactions.ocf.json");
      expect((await readFile(join(golden, "7", "Transactions.ocf.json"))).includes("\r\n")).toBe(true);
      expect((await validatePackageAt(join(golden, "7"))).problems.map((p) => p.code)).toContain("MD5_MISMATCH");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
