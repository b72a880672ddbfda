/**
 * Every example in every `--help` is real: each flag exists for its command (the example parses),
 * every URL is a URL, every issuer is one the sample API serves, and every package path is a name
 * `ocf-sync export` writes for one of them.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/main.js";
import { packageNameFor } from "../../../src/ocf/package-folder.js";
import { loadSampleData } from "../../../src/sample-server/data.js";
import { captureIo } from "../../helpers/capture.js";

const COMMANDS = ["demo", "export", "pull", "reconcile", "serve-samples", "sync", "validate"];

/** The example command lines of a help text: continuation lines joined, shell syntax after the command cut. */
function examplesOf(help: string): string[][] {
  const section = help.split(/\nExamples?[^\n]*:\n/)[1] ?? "";
  const lines = section.replace(/\\\n\s*/g, "").split("\n").map((line) => line.trim());
  return lines
    .map((line) => line.replace(/\s+#.*$/, "").split(/\s(?:\||>|&)(?:\s|$)/)[0] ?? "")
    .map((line) => line.split(/\s+/).filter(Boolean))
    .map((words) => words.slice(words.findIndex((w) => w === "ocf-sync")))
    .filter((words) => words[0] === "ocf-sync")
    .map((words) => words.slice(1).map((w) => w.replace(/^'(.*)'$/, "$1")));
}

let dir: string;
let issuers: string[];
let packageNames: Set<string>;
const helps = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ocf-sync-help-"));
  issuers = [...(await loadSampleData()).issuers.keys()];
  packageNames = new Set(issuers.map(packageNameFor));
  for (const command of ["", ...COMMANDS]) {
    const io = captureIo(dir);
    expect(await runCli(command === "" ? ["--help"] : [command, "--help"], io)).toBe(0);
    helps.set(command, io.stdout.text);
  }
});

describe("--help examples", () => {
  it.each(["(ocf-sync --help)", ...COMMANDS])("of %s use real flags, URLs, issuers and package names", async (name) => {
    const help = helps.get(name.startsWith("(") ? "" : name) ?? "";
    const examples = examplesOf(help);
    expect(examples.length, help).toBeGreaterThan(0);
    for (const args of examples) {
      const line = `ocf-sync ${args.join(" ")}`;
      // Every flag is one the command knows, with a value where it takes one: the line parses.
      const io = captureIo(dir);
      expect(await runCli([...args, "--help"], io), `${line}\n${io.stderr.text}`).toBe(0);
      for (const [i, arg] of args.entries()) {
        const value = args[i + 1] ?? "";
        if (arg === "--base-url") expect(() => new URL(value), line).not.toThrow();
        if (arg === "--issuer") expect(issuers, line).toContain(value);
        const inOut = /^out\/(.+?)(\.ocf\.zip)?$/.exec(arg);
        if (inOut !== null && args[i - 1] !== "--out") expect([...packageNames], line).toContain(inOut[1]);
      }
    }
  });

  it("name the sample issuers' packages as export writes them", () => {
    expect([...packageNames].sort()).toEqual(["144361", "7", "acme-robotics", "north-wind-eu.85249f7815", "zeta-labs.7b813727ae"]);
  });
});
