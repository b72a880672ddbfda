/**
 * The import rules of src/ (`npm run check:imports`, run by .ci/run): no cycles, and every import goes
 * down the layers of STYLE.md's data flow, cli -> (pull -> source) -> mapping -> ocf -> (writer |
 * validate | reconcile | sync). A module imports what it calls, so the arrows of that flow are the
 * imports. Type-only imports count too: a type that two layers share belongs to the lower one, and
 * a cycle of types is a cycle of files to read together.
 *
 * The layers, lowest first; a layer may import its own folder and the layers listed for it:
 *
 *   foundation  src/*.ts but the entry points (errors, logger, options, redaction, dates, decimal, version,
 *               text-table, closest, pause-point, zod-compiled, number-list): the vocabulary of the
 *               whole house. Imports nothing else of src/.
 *   io          src/io/: files whole or not at all, lock files, folders, buffered and line-by-line
 *               files. Foundation only.
 *   source      src/source/: the API's records, their zod schemas and parsing (the wire boundary).
 *               Foundation only.
 *   client      src/client/: HTTP. Source (the record kinds it lists) and foundation; never OCF or
 *               the mapping (STYLE.md: "the client never knows about OCF").
 *   ocf         src/ocf/: OCF 1.2.0 types, schemas, the package reader, writer and validation, and
 *               the canonical order of a package's objects. io and foundation. (The mapping makes
 *               OCF objects, so it imports ocf, never the reverse.)
 *   pull        src/pull/: pagination and pulling. client, source, io, foundation.
 *   mapping     src/mapping/: pure functions source -> OCF. source, ocf, foundation; no I/O: neither
 *               io, client nor pull, and no node module that reaches files, sockets or processes.
 *   reconcile   src/reconcile/: replaying packages, comparing figures, reports. Everything above but
 *               export and sync (a job beside them, sharing nothing with them).
 *   export      src/export/: the export job (pull, map, write, validate, commit, resume). Everything
 *               above but reconcile.
 *   sync        src/sync/: the incremental export. export (it writes each package through the export
 *               of one issuer, under the same output lock) and everything export may import.
 *   sample-server  src/sample-server/: the embedded API of the demo and the tests, a stand-in for
 *               the service. source (the record kinds) and foundation; only cli and index.ts use it.
 *   cli         src/cli/: argument parsing and printing. Every layer, but index.ts; no layer imports
 *               cli (each layer's list above leaves it out).
 *   index.ts    the public surface: every layer but cli. No module of src/ imports it (a module
 *               imports the module that defines a name, never the barrel).
 *   testing.ts  the `ocf-sync/testing` entry point: the sample server, for tests of code that uses
 *               ocf-sync. Like index.ts, imported by no module of src/.
 *
 * Only src/ is checked: tests, benchmarks and scripts may import any layer.
 */

/** The foundation: the files at the top of src/, but the entry points index.ts and testing.ts. */
const FOUNDATION = "^src/(?!(index|testing)\\.ts$)[^/]+\\.ts$";

/** A rule that `folder` imports, in src/, only itself, the foundation and `below` (folder names). */
function layer(folder, below, comment) {
  const allowed = [folder, ...below].join("|");
  return {
    name: `layer-${folder}`,
    comment,
    severity: "error",
    from: { path: `^src/${folder}/` },
    to: { path: "^src/", pathNot: [`^src/(${allowed})/`, FOUNDATION] },
  };
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Modules that import each other (directly or through others): move what they share into a module of its own.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "layer-foundation",
      comment: "The files at the top of src/ import only each other.",
      severity: "error",
      from: { path: FOUNDATION },
      to: { path: "^src/", pathNot: FOUNDATION },
    },
    layer("io", [], "io: files and folders, built on the foundation only."),
    layer("source", [], "source: the wire boundary, built on the foundation only."),
    layer("client", ["source"], "client: HTTP knows the source's record kinds, never OCF, the mapping or the jobs."),
    layer("ocf", ["io"], "ocf: OCF types, schemas, reader, writer, validation; below the mapping, which makes OCF objects."),
    layer("pull", ["client", "source", "io"], "pull: pagination over the client."),
    layer("mapping", ["source", "ocf"], "mapping: pure functions source -> OCF; no io, client or pull (no I/O)."),
    layer("reconcile", ["client", "source", "io", "ocf", "pull", "mapping"], "reconcile: a job on top, beside export and sync."),
    layer("export", ["client", "source", "io", "ocf", "pull", "mapping"], "export: a job on top; below sync, never importing it."),
    layer("sync", ["client", "source", "io", "ocf", "pull", "mapping", "export"], "sync: the incremental export, on top of export."),
    layer("sample-server", ["source"], "sample-server: the demo's and tests' API, beside the library."),
    {
      name: "not-to-index",
      comment: "src/index.ts and src/testing.ts are the public surface: no module of src/ imports them.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/(index|testing)\\.ts$" },
    },
    {
      name: "index-not-to-cli",
      comment: "The library's surface does not reach into the command line.",
      severity: "error",
      from: { path: "^src/(index|testing)\\.ts$" },
      to: { path: "^src/cli/" },
    },
    {
      name: "mapping-no-io",
      comment: "mapping: no I/O (STYLE.md). Files, sockets, processes and threads belong to io, client, export and sync.",
      severity: "error",
      from: { path: "^src/mapping/" },
      to: {
        dependencyTypes: ["core"],
        path: "^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|dns/promises|child_process|cluster|worker_threads|readline|os|inspector)$",
      },
    },
    {
      name: "mapping-no-io-packages",
      comment: "mapping: no package that does I/O (HTTP, object storage, Redis).",
      severity: "error",
      from: { path: "^src/mapping/" },
      to: { dependencyTypes: ["npm", "npm-dev", "npm-peer", "npm-optional"], path: "^(undici|@aws-sdk/|redis|ioredis)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
