/**
 * The pages of docs/commands/, one per command, made from what `ocf-sync <command> --help` prints (and
 * `ocf-sync --help` for the index), so the manual and the help never drift: `npm run docs:commands`
 * writes them and test/unit/command-docs.test.ts fails when a page differs from what this returns.
 * The help is taken by running the CLI itself, as a user would, not by reading the constants.
 */
import { PassThrough } from "node:stream";
import { commandSummaries, runCli } from "../src/cli/main.js";
import { ocfSyncVersion } from "../src/version.js";

/** docs/commands/, from the root of the repository. */
export const COMMAND_DOCS_FOLDER = "docs/commands";

/** The page of the main help; every command's page is `<command>.md`. */
const INDEX_PAGE = "ocf-sync.md";

/** What `ocf-sync ...args` prints on standard output (the help: status 0, nothing else written). */
async function helpOf(args: readonly string[]): Promise<string> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  stderr.resume();
  const status = await runCli(args, { stdout, stderr, env: {}, cwd: process.cwd() });
  if (status !== 0) throw new Error(`ocf-sync ${args.join(" ")} exited with ${status}`);
  return Buffer.concat(chunks).toString("utf8").trimEnd();
}

/** A help text in a fenced block that no line of it can close: the fence is longer than any run of backticks in it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map(([run]) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return [`${fence}text`, text, fence].join("\n");
}

/**
 * The pages, by file name (inside docs/commands/), in the order of the main help. The main help's
 * first line names the version; the page says `<version>` instead, so that a release does not make
 * every page stale.
 */
export async function commandDocPages(): Promise<Map<string, string>> {
  const commands = commandSummaries();
  const pages = new Map<string, string>();
  const mainHelp = (await helpOf(["--help"])).replace(`ocf-sync ${ocfSyncVersion()}:`, "ocf-sync <version>:");
  pages.set(
    INDEX_PAGE,
    page("ocf-sync", "The command line: its commands, and the help `ocf-sync --help` prints.", mainHelp, [
      "## Commands",
      "",
      ...commands.map(({ name, summary }) => `- [\`ocf-sync ${name}\`](${name}.md): ${summary}`),
    ]),
  );
  for (const { name, summary } of commands) {
    pages.set(`${name}.md`, page(`ocf-sync ${name}`, `${capitalized(summary)}.`, await helpOf([name, "--help"]), [`All commands: [ocf-sync](${INDEX_PAGE}).`]));
  }
  return pages;
}

function page(title: string, what: string, help: string, more: readonly string[]): string {
  return [
    "<!-- Generated from the --help text by `npm run docs:commands` (scripts/write-command-docs.ts); do not edit. -->",
    "",
    `# ${title}`,
    "",
    what,
    "",
    fenced(help),
    "",
    ...more,
    ...(more.length > 0 ? [""] : []),
    "Conventions, exit statuses and the details of every option: [docs/cli.md](../cli.md).",
    "",
  ].join("\n");
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
