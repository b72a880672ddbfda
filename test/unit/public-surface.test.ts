/**
 * The public API (src/index.ts, and `ocf-sync/testing` in src/testing.ts) is deliberate: the list of
 * names is pinned here (a change to it is a change to the README's "Library" section and to the
 * CHANGELOG), every name has a doc comment, and no public type reaches a dependency's types (zod,
 * undici, decimal.js), however deep.
 */
import { resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import * as api from "../../src/index.js";
import * as testing from "../../src/testing.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Runtime values: functions, classes and constants. */
const VALUES = [
  "API_ERROR_CODES",
  "AbortedError",
  "ApiError",
  "AuthError",
  "ClientConfigError",
  "DEFAULT_FULL_EVERY",
  "DEFAULT_OVERLAP_SECONDS",
  "DIFFERENCE_CODES",
  "DeadlineExceededError",
  "DecimalError",
  "ExportValidationError",
  "FIGURE_NAMES",
  "FileSystemError",
  "InterruptedError",
  "InvalidIdentifierError",
  "InvalidJsonError",
  "MAPPING_ERROR_CODES",
  "MAPPING_WARNING_CODES",
  "MappingError",
  "NETWORK_ERROR_CODES",
  "NdjsonFormatError",
  "NetworkError",
  "OCF_READ_ERROR_CODES",
  "OCF_SYNC_ERROR_CODES",
  "OCF_VERSION",
  "OcfPackageError",
  "OcfReadError",
  "OcfSyncError",
  "OutputLockedError",
  "PACKAGE_PROBLEM_CODES",
  "PackageIntegrityError",
  "PackageUnusableError",
  "PaginationError",
  "RECORD_KINDS",
  "S3ClientMissingError",
  "S3RequestError",
  "ReconcileInputError",
  "ResponseTooLargeError",
  "SourceEnvelopeError",
  "SourceReconciliation",
  "SourceRecordError",
  "SyncLockedError",
  "SyncStateError",
  "SyncStoreError",
  "buildPackageFiles",
  "checkSourceConsistency",
  "createApiClient",
  "createRateLimiter",
  "createRedactor",
  "createRedisRateLimiter",
  "quotaKey",
  "quotaWindow",
  "SHARD_INVALID",
  "parseShard",
  "shardFromEnvironment",
  "shardOfIndex",
  "declaredLineage",
  "checkLineage",
  "LEDGER_PROBLEM_CODES",
  "LINEAGE_READINGS",
  "ZipTooLargeError",
  "diffPackageObjects",
  "summarizeChangeSet",
  "CHANGE_SAMPLE_LIMIT",
  "exportIssuer",
  "exportIssuers",
  "getAward",
  "getUnit",
  "isAbortedError",
  "isApiError",
  "isAuthError",
  "isClientConfigError",
  "isDeadlineExceededError",
  "isFileSystemError",
  "isInterruptedError",
  "isInvalidIdentifierError",
  "isInvalidJsonError",
  "isMappingError",
  "isNetworkError",
  "isOcfReadError",
  "isOcfSyncError",
  "isResponseTooLargeError",
  "isSourceEnvelopeError",
  "isSourceRecordError",
  "loadPackageObjects",
  "loadSourceFromApi",
  "loadSourceFromNdjson",
  "mapAward",
  "mapIssuer",
  "mapUnit",
  "packageNameFor",
  "parseRecord",
  "pullIssuer",
  "pullIssuers",
  "readOcfPackage",
  "readSyncState",
  "reconcileApiWithOcf",
  "reconcileNdjsonWithOcf",
  "reconcileOcfWithOcf",
  "reconcileSourceWithOcf",
  "reconciliationCsv",
  "renderReconciliationHtml",
  "renderReconciliationText",
  "replayPackage",
  "reportAgrees",
  "shardIndexOf",
  "shardOf",
  "streamIssuerRecords",
  "sync",
  "validateOcfFile",
  "validateOcfObject",
  "validatePackageAt",
];

/** The runtime values of `ocf-sync/testing`: the sample API, kept out of the main entry. */
const TESTING_VALUES = ["FAULT_KINDS", "startSampleServer"];

/** Each entry point of the package: its source, its module as loaded, and its values. */
const ENTRIES = [
  { entry: "src/index.ts", module: api as Record<string, unknown>, values: VALUES },
  { entry: "src/testing.ts", module: testing as Record<string, unknown>, values: TESTING_VALUES },
];

/** The names of every export, values and types, with what each is, read by the TypeScript compiler. */
interface PublicName {
  name: string;
  symbol: ts.Symbol;
}

let checker: ts.TypeChecker;
/** The names of each entry point, by its source path. */
const namesOf = new Map<string, PublicName[]>();

beforeAll(() => {
  const config = ts.getParsedCommandLineOfConfigFile(resolve(ROOT, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (config === undefined) throw new Error("tsconfig.build.json did not parse");
  const files = ENTRIES.map(({ entry }) => resolve(ROOT, entry));
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  checker = program.getTypeChecker();
  for (const { entry } of ENTRIES) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(resolve(ROOT, entry)) as ts.SourceFile);
    if (module === undefined) throw new Error(`${entry} has no module symbol`);
    namesOf.set(
      entry,
      checker.getExportsOfModule(module).map((exported) => ({
        name: exported.name,
        symbol: exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported,
      })),
    );
  }
}, 120_000);

function names(entry: string): PublicName[] {
  const found = namesOf.get(entry);
  if (found === undefined) throw new Error(`${entry} was not read`);
  return found;
}

const DEPENDENCY_TYPES = /[\\/]node_modules[\\/](zod|undici|decimal\.js)[\\/]/;
const OUTSIDE_PROJECT = /[\\/]node_modules[\\/]/;

/** Every path from the public name to a type declared by zod, undici or decimal.js. */
function dependencyTypesReachedFrom(symbol: ts.Symbol, name: string): string[] {
  const found: string[] = [];
  const seen = new Set<ts.Type>();
  const declaredIn = (type: ts.Type): readonly ts.Declaration[] => [
    ...(type.aliasSymbol?.declarations ?? []),
    ...(type.getSymbol()?.declarations ?? []),
  ];
  const visit = (type: ts.Type, path: string, depth: number): void => {
    if (seen.has(type) || depth > 40) return;
    seen.add(type);
    const declarations = declaredIn(type);
    if (declarations.some((d) => DEPENDENCY_TYPES.test(d.getSourceFile().fileName))) {
      found.push(`${path}: ${checker.typeToString(type)}`);
      return;
    }
    for (const argument of type.aliasTypeArguments ?? []) visit(argument, `${path}<>`, depth + 1);
    if (type.isUnionOrIntersection()) {
      for (const part of type.types) visit(part, path, depth + 1);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object)) return;
    if ((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) {
      for (const argument of checker.getTypeArguments(type as ts.TypeReference)) visit(argument, `${path}<>`, depth + 1);
    }
    // The standard library's and Node's own types (Promise, Map, AbortSignal, Error) are not ours to walk.
    if (declarations.length > 0 && declarations.every((d) => OUTSIDE_PROJECT.test(d.getSourceFile().fileName) || d.getSourceFile().hasNoDefaultLib)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      visit(checker.getTypeOfSymbol(property), `${path}.${property.name}`, depth + 1);
    }
    for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
      for (const parameter of signature.getParameters()) visit(checker.getTypeOfSymbol(parameter), `${path}(${parameter.name})`, depth + 1);
      visit(signature.getReturnType(), `${path}()`, depth + 1);
    }
    for (const info of checker.getIndexInfosOfType(type)) visit(info.type, `${path}[]`, depth + 1);
  };
  if (symbol.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class)) visit(checker.getDeclaredTypeOfSymbol(symbol), name, 0);
  if (symbol.flags & ts.SymbolFlags.Value) visit(checker.getTypeOfSymbol(symbol), name, 0);
  return found;
}

describe.each(ENTRIES)("the public surface of $entry", ({ entry, module, values }) => {
  it("exports exactly the documented values", () => {
    expect(Object.keys(module).sort()).toEqual([...values].sort());
  });

  it("names every value and type once, and gives each a doc comment", () => {
    expect(names(entry).length).toBeGreaterThan(values.length);
    const undocumented = names(entry).filter(({ symbol }) => ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() === "").map((n) => n.name);
    expect(undocumented).toEqual([]);
  });

  it("calls in its examples only functions a user can import (or the value's own methods)", () => {
    // A free call in an `@example` of a public name: what a reader copies, so it must be importable.
    const FREE_CALL = /(?<![.\w$])([a-z][A-Za-z0-9]*)\(/g;
    const KEYWORDS = new Set(["for", "if", "while", "switch", "catch", "function", "return", "typeof"]);
    // Node's and the platform's own (node:fs/promises, node:path, fetch).
    const PLATFORM = new Set(["fetch", "join", "mkdir", "readFile", "writeFile"]);
    const importable = ENTRIES.flatMap((e) => e.values);
    const unknown = names(entry).flatMap(({ name, symbol }) =>
      symbol
        .getJsDocTags(checker)
        .filter((tag) => tag.name === "example")
        .flatMap((tag) => [...ts.displayPartsToString(tag.text).matchAll(FREE_CALL)].map((m) => m[1] ?? ""))
        .filter((called) => !KEYWORDS.has(called) && !PLATFORM.has(called) && !importable.includes(called))
        .map((called) => `${name}: ${called}()`),
    );
    expect(unknown).toEqual([]);
  });

  it("never reaches a type of zod, undici or decimal.js", () => {
    expect(names(entry).flatMap(({ symbol, name }) => dependencyTypesReachedFrom(symbol, name))).toEqual([]);
  });
});

describe("the entry points", () => {
  it("share no name: the sample API is only in ocf-sync/testing", () => {
    const main = new Set(names("src/index.ts").map((n) => n.name));
    expect(names("src/testing.ts").filter((n) => main.has(n.name)).map((n) => n.name)).toEqual([]);
  });
});
