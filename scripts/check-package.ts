/**
 * `npm run check:package`: the package as npm would publish it, checked the way a user meets it.
 *
 * 1. `npm pack` (which builds dist/ through `prepack`), and the tarball holds what runs and nothing
 *    else: dist/ (JavaScript and declarations, no source maps), bin/, the sample API data, README,
 *    LICENSE, CHANGELOG; no golden packages, tests, sources or scripts.
 * 2. publint (strict) and Are the Types Wrong (ESM-only profile) find nothing.
 * 3. Installed into an empty project: `import "ocf-sync"` and `import "ocf-sync/testing"` work (the
 *    sample API only in the second), the `ocf-sync` bin runs (its version, and the demo end to end), and
 *    the README's library example type-checks against the installed types and runs against a sample
 *    API started from the installed `ocf-sync/testing`.
 * 4. The migration script a user would write (docs/examples/migration.ts: export two issuers, read them
 *    back typed, total them, reconcile, print the report) type-checks and runs, as written, from the
 *    installed package; its totals are those of the golden packages.
 * 5. Every `@example` of the TSDoc comments in src/ (scripts/doc-examples.ts) type-checks against the
 *    installed types, in the same tsc run as steps 3 and 4, and runs, each in a folder of its own
 *    (see {@link runDocExamples}), unless its fence says why it cannot; those are listed with the reason.
 *
 * Needs the npm registry (or a warm npm cache) for step 3's dependencies; `.ci/run` runs it after
 * the tests. Exits non-zero with the reason on the first failure.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import pLimit from "p-limit";
import { formatDecimal, sumDecimals } from "../src/decimal.js";
import { OUTPUT_SCHEMAS } from "../src/cli/output-schemas.js";
import { SAMPLES_AS_OF } from "../src/sample-server/data.js";
import { type DocExample, exampleFileName, exampleModule, readDocExamples } from "./doc-examples.js";

const ROOT = resolve(import.meta.dirname, "..");
const exec = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

function fail(message: string): never {
  process.stderr.write(`check:package: FAILED: ${message}\n`);
  process.exit(1);
}

function step(message: string): void {
  process.stdout.write(`check:package: ${message}\n`);
}

/** The objects of the golden package of a sample issuer (samples/ocf/<issuer>/), by manifest list. */
async function goldenObjects(issuer: string): Promise<Map<string, Record<string, unknown>[]>> {
  const manifest = JSON.parse(await readFile(join(ROOT, "samples", "ocf", issuer, "Manifest.ocf.json"), "utf8")) as Record<string, unknown>;
  const lists = new Map<string, Record<string, unknown>[]>();
  for (const [key, list] of Object.entries(manifest)) {
    if (!key.endsWith("_files") || !Array.isArray(list)) continue;
    const items: Record<string, unknown>[] = [];
    for (const { filepath } of list as { filepath: string }[]) {
      const file = JSON.parse(await readFile(join(ROOT, "samples", "ocf", issuer, filepath), "utf8")) as { items: Record<string, unknown>[] };
      items.push(...file.items);
    }
    lists.set(key, items);
  }
  return lists;
}

/** The number of transactions in the golden package of a sample issuer. */
async function goldenTransactionCount(issuer: string): Promise<number> {
  return (await goldenObjects(issuer)).get("transactions_files")?.length ?? 0;
}

/** The line docs/examples/migration.ts prints for a sample issuer, from its golden package. */
async function goldenMigrationLine(issuer: string): Promise<string> {
  const lists = await goldenObjects(issuer);
  const all = [...lists.values()].flat();
  const transactions = lists.get("transactions_files") ?? [];
  const quantities = (keep: (tx: Record<string, unknown>) => boolean): string => formatDecimal(sumDecimals(transactions.filter(keep).map((tx) => String(tx.quantity))));
  const shares = quantities((tx) => tx.object_type === "TX_STOCK_ISSUANCE");
  const units = quantities((tx) => String(tx.object_type).endsWith("_ISSUANCE") && tx.compensation_type === "RSU");
  const manifest = JSON.parse(await readFile(join(ROOT, "samples", "ocf", issuer, "Manifest.ocf.json"), "utf8")) as { issuer: { legal_name: string } };
  return `${issuer}: ${all.length} objects, ${transactions.length} transactions, ${lists.get("stakeholders_files")?.length ?? 0} stakeholders of ${manifest.issuer.legal_name}; ${shares} shares issued, ${units} units granted`;
}

async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    const { stdout } = await exec(command, args, { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    fail(`${command} ${args.join(" ")} (in ${options.cwd}): ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/** What the tarball must hold, and what it must not. */
const REQUIRED = ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "bin/ocf-sync.cjs", "bin/start.cjs", "dist/index.js", "dist/index.d.ts", "dist/testing.js", "dist/testing.d.ts", "dist/cli/bin.js", "samples/api/7.json", ...OUTPUT_SCHEMAS.map((entry) => `schemas/${entry.file}`)];
const ALLOWED = [/^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/, /^bin\/[a-z-]+\.cjs$/, /^dist\/.+\.(js|d\.ts)$/, /^samples\/api\/[^/]+\.json$/, /^schemas\/[a-z-]+\.schema\.json$/];

/** The ```ts block of the README's "Library" section. */
async function readmeLibraryExample(): Promise<string> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Library"));
  const code = /```ts\n([\s\S]*?)```/.exec(section ?? "")?.[1];
  if (code === undefined) fail("the README has no ```ts example in its Library section");
  return code;
}

/** Credentials the sample API of the examples' runs accepts, and that their `CARTA_*` variables carry. */
const EXAMPLE_TOKEN = "doc-example-token";
const EXAMPLE_CLIENT = { clientId: "doc-example-client", clientSecret: "doc-example-secret" };

/** Examples run at once: the machine may have two cores, and each run is a Node process. */
const EXAMPLE_RUNS_AT_ONCE = 2;

/**
 * Runs the examples (compiled next to their modules by the tsc run) that can run, each in its own
 * folder made from one prepared folder, as a user would run a snippet in a project of theirs:
 * `out/7`, `out/7.ocf.zip` and the same of 144361 (an `ocf-sync export --zip` of the sample API, as
 * of the day its records' counters are as of, so that a reconciliation agrees),
 * `theirs/7.ocf.zip` (a copy, for the examples that compare two packages) and `pulled.ndjson`
 * (`ocf-sync pull --issuer 7`). `CARTA_BASE_URL` points at a sample API started from the installed
 * `ocf-sync/testing`, which takes `CARTA_TOKEN` and the OAuth2 client of `CARTA_TOKEN_URL`,
 * `CARTA_CLIENT_ID` and `CARTA_CLIENT_SECRET`. An example passes when it exits 0 within the time
 * limit; one not run is listed with the reason its fence gives.
 */
async function runDocExamples(project: string, runs: string, examples: readonly DocExample[]): Promise<void> {
  const testing = (await import(pathToFileURL(join(project, "node_modules", "ocf-sync", "dist", "testing.js")).href)) as typeof import("../src/testing.js");
  const server = await testing.startSampleServer({ token: EXAMPLE_TOKEN, oauth: EXAMPLE_CLIENT });
  try {
    const env = {
      ...process.env,
      CARTA_BASE_URL: server.url,
      CARTA_TOKEN: EXAMPLE_TOKEN,
      CARTA_TOKEN_URL: `${server.url}/o/access_token/`,
      CARTA_CLIENT_ID: EXAMPLE_CLIENT.clientId,
      CARTA_CLIENT_SECRET: EXAMPLE_CLIENT.clientSecret,
    };
    const prepared = join(runs, "prepared");
    await mkdir(prepared, { recursive: true });
    const bin = join(project, "node_modules", "ocf-sync", "bin", "ocf-sync.cjs");
    const cliEnv = { ...process.env, OCF_SYNC_BASE_URL: server.url, OCF_SYNC_TOKEN: EXAMPLE_TOKEN };
    await run(process.execPath, [bin, "export", "--issuer", "7", "--issuer", "144361", "--out", "out", "--zip", "--as-of", SAMPLES_AS_OF], { cwd: prepared, env: cliEnv });
    await run(process.execPath, [bin, "pull", "--issuer", "7", "--out", "pulled.ndjson"], { cwd: prepared, env: cliEnv });
    await mkdir(join(prepared, "theirs"));
    await cp(join(prepared, "out", "7.ocf.zip"), join(prepared, "theirs", "7.ocf.zip"));

    const runnable = examples.filter((example) => example.noRun === undefined);
    step(`the @example snippets, run: ${runnable.length} of ${examples.length}; the other ${examples.length - runnable.length} are type-checked only:`);
    for (const example of examples) if (example.noRun !== undefined) step(`  ${example.file}:${example.line}: ${example.noRun}`);
    const failures: string[] = [];
    const limit = pLimit(EXAMPLE_RUNS_AT_ONCE);
    const runOne = async (example: DocExample): Promise<void> => {
      const script = join(project, exampleFileName(example).replace(/\.ts$/, ".js"));
      const folder = join(runs, exampleFileName(example).replace(/^doc-examples\//, "").replace(/\.ts$/, ""));
      await cp(prepared, folder, { recursive: true });
      try {
        await exec(process.execPath, [script], { cwd: folder, env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
        step(`  ran ${example.file}:${example.line}`);
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string; message: string };
        failures.push(`${example.file}:${example.line}: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
      }
    };
    await Promise.all(runnable.map((example) => limit(() => runOne(example))));
    if (failures.length > 0) fail(`${failures.length} @example snippets failed when run:\n${failures.join("\n")}`);
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "ocf-sync-package-"));
  try {
    step("npm pack (builds dist/ through prepack)");
    const packed = JSON.parse(await run(NPM, ["pack", "--json", "--pack-destination", work], { cwd: ROOT })) as {
      filename: string;
      version: string;
      files: { path: string; size: number }[];
    }[];
    const [pkg] = packed;
    if (pkg === undefined) fail("npm pack printed no package");
    const tarball = join(work, pkg.filename);
    const paths = pkg.files.map((f) => f.path).sort();
    const missing = REQUIRED.filter((p) => !paths.includes(p));
    const unexpected = paths.filter((p) => !ALLOWED.some((allowed) => allowed.test(p)));
    if (missing.length > 0) fail(`the tarball lacks ${missing.join(", ")}`);
    if (unexpected.length > 0) fail(`the tarball holds what it should not: ${unexpected.join(", ")}`);
    const bytes = pkg.files.reduce((sum, f) => sum + f.size, 0);
    step(`${pkg.filename}: ${paths.length} files, ${(bytes / 1024).toFixed(0)} KiB unpacked (${paths.filter((p) => p.startsWith("dist/")).length} in dist/, no source maps, no golden packages)`);

    step("publint --strict");
    process.stdout.write(await run(process.execPath, [join(ROOT, "node_modules/publint/src/cli.js"), "run", tarball, "--strict"], { cwd: work }));
    step("attw --profile esm-only");
    process.stdout.write(
      await run(process.execPath, [join(ROOT, "node_modules/@arethetypeswrong/cli/dist/index.js"), tarball, "--profile", "esm-only", "--format", "table", "--no-color", "--no-emoji"], { cwd: work }),
    );

    const project = join(work, "consumer");
    await run(process.execPath, ["-e", `require("node:fs").mkdirSync(${JSON.stringify(project)})`], { cwd: work });
    await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`);
    step("npm install of the tarball into an empty project");
    await run(NPM, ["install", "--no-audit", "--no-fund", "--loglevel", "error", tarball], { cwd: project });

    step("ESM import");
    const imported = await run(process.execPath, ["--input-type=module", "-e", 'const m = await import("ocf-sync"); console.log(typeof m.exportIssuers, typeof m.createApiClient, Object.keys(m).length);'], { cwd: project });
    if (!/^function function \d+\n$/.test(imported)) fail(`import "ocf-sync" gave ${JSON.stringify(imported)}`);
    const testing = await run(
      process.execPath,
      ["--input-type=module", "-e", 'const t = await import("ocf-sync/testing"); const m = await import("ocf-sync"); console.log(typeof t.startSampleServer, Array.isArray(t.FAULT_KINDS), "startSampleServer" in m);'],
      { cwd: project },
    );
    if (testing !== "function true false\n") fail(`import "ocf-sync/testing" (and the sample API out of "ocf-sync") gave ${JSON.stringify(testing)}`);

    step("the ocf-sync bin");
    const bin = join(project, "node_modules", ".bin", process.platform === "win32" ? "ocf-sync.cmd" : "ocf-sync");
    const version = (await run(bin, ["--version"], { cwd: project })).trim();
    if (version !== pkg.version) fail(`ocf-sync --version printed ${JSON.stringify(version)}, not ${pkg.version}`);
    const demo = await run(bin, ["demo", "--out", "demo-out"], { cwd: project });
    if (!demo.includes("5 of 5 issuers exported")) fail(`ocf-sync demo did not export the five sample issuers:\n${demo}`);

    step("the README's library example, docs/examples/migration.ts and an ocf-sync/testing import: type-checked against the installed types, then run");
    await writeFile(join(project, "example.ts"), await readmeLibraryExample());
    await writeFile(join(project, "migration.ts"), await readFile(join(ROOT, "docs", "examples", "migration.ts"), "utf8"));
    await writeFile(
      join(project, "testing-example.ts"),
      `import { startSampleServer, type SampleServer, type SampleServerOptions } from "ocf-sync/testing";
const options: SampleServerOptions = { port: 0, token: "sample" };
const server: SampleServer = await startSampleServer(options);
await server.close();
`,
    );
    const examples = await readDocExamples(ROOT);
    await mkdir(join(project, "doc-examples"));
    for (const example of examples) await writeFile(join(project, exampleFileName(example)), exampleModule(example));
    step(`and the ${examples.length} @example snippets of src/'s TSDoc comments, in the same tsc run`);
    await run(
      process.execPath,
      [
        join(ROOT, "node_modules/typescript/bin/tsc"),
        "--strict",
        "--exactOptionalPropertyTypes",
        "--noUncheckedIndexedAccess",
        "--module", "nodenext",
        "--moduleResolution", "nodenext",
        "--target", "es2022",
        "--skipLibCheck", "false",
        "--typeRoots", join(ROOT, "node_modules/@types"),
        "--types", "node",
        "example.ts",
        "migration.ts",
        "testing-example.ts",
        ...examples.map(exampleFileName),
      ],
      { cwd: project },
    );
    step("the README's library example, run");
    await writeFile(
      join(project, "run-example.mjs"),
      `import { execFile } from "node:child_process";
import { startSampleServer } from "ocf-sync/testing";
// The example runs in its own process, so that this one's event loop stays free to serve it.
const server = await startSampleServer({ port: 0, oauth: { clientId: "example-client", clientSecret: "example-secret" } });
try {
  const env = { ...process.env, CARTA_BASE_URL: server.url, CARTA_TOKEN_URL: server.url + "/o/access_token/", CARTA_CLIENT_ID: "example-client", CARTA_CLIENT_SECRET: "example-secret" };
  process.exitCode = await new Promise((done) => {
    const child = execFile(process.execPath, ["example.js"], { env }, (error) => done(error === null ? 0 : 1));
    child.stdout.pipe(process.stdout);
    child.stderr.pipe(process.stderr);
  });
} finally {
  await server.close();
}
`,
    );
    const example = await run(process.execPath, ["run-example.mjs"], { cwd: project });
    // The example exports the sample issuers 7 and 144361, whose golden packages (in the repository,
    // not the tarball) hold the transactions it must report.
    const counts = await Promise.all(["7", "144361"].map(async (issuer) => `${issuer}: ${await goldenTransactionCount(issuer)} transactions`));
    for (const expected of ["[1/2]", "[2/2]", ...counts]) {
      if (!example.includes(expected)) fail(`the README example's output lacks ${JSON.stringify(expected)}:\n${example}`);
    }

    step("docs/examples/migration.ts, run as written: export, read back typed, total, reconcile");
    // It starts its own sample API; run() fails unless it exits 0, which it does only when both reports agree.
    const migration = await run(process.execPath, ["migration.js"], { cwd: project });
    const lines = await Promise.all(["7", "144361"].map(goldenMigrationLine));
    for (const expected of lines) {
      if (!migration.includes(expected)) fail(`the migration script's output lacks ${JSON.stringify(expected)}:\n${migration}`);
    }
    const agreements = migration.match(/^AGREE: \d+ grants compared, no difference$/gm) ?? [];
    if (agreements.length !== 2) fail(`the migration script printed ${agreements.length} agreeing reports, not 2:\n${migration}`);

    await runDocExamples(project, join(work, "doc-example-runs"), examples);
    step("all good");
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
