/**
 * What gated suites need from outside the repository, resolved from the environment (no vitest here:
 * the global setup and the reporter read it in vitest's main process too).
 *
 * - conformance: the third-party reference folder (official OCF schemas and samples, the service's
 *   OpenAPI document and spec), named by `OCF_SYNC_SHARED_DIR`, by default `../shared` beside the
 *   project when it exists. Never copied into the repository.
 * - chromium: the browser the HTML report test drives through playwright-core (never a download),
 *   named by `OCF_SYNC_CHROMIUM`, else the first usual install path that exists.
 * - redis: a `redis-server` executable the shared-quota tests start on a free loopback port of their
 *   own, named by `OCF_SYNC_REDIS_SERVER`, else the first on the PATH.
 * - s3: moto's S3-compatible `moto_server`, which the object-storage tests start on a free loopback
 *   port of their own, named by `OCF_SYNC_MOTO_SERVER`, else the first on the PATH.
 *
 * Absent: the suites are skipped and the run prints one line per gate saying how to run them.
 * `OCF_SYNC_REQUIRE_CONFORMANCE=1` / `OCF_SYNC_REQUIRE_BROWSER=1` / `OCF_SYNC_REQUIRE_REDIS=1` / `OCF_SYNC_REQUIRE_S3=1` (set by `.ci/run`) turn absence into
 * a failure, and so does a variable naming something that is not there.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

export interface Gate {
  /** What the suites need, as printed: "conformance", "chromium". */
  readonly name: string;
  /** Where it was found; `undefined` when it is absent. */
  readonly found: string | undefined;
  /** Why it is absent, for the skip line. */
  readonly missing: string;
  /** How to run the skipped suites. */
  readonly howToRun: string;
  /** The setting that demands these suites (`OCF_SYNC_REQUIRE_...=1`), when one is set. */
  readonly requiredBy: string | undefined;
  /** A setting that points at nothing usable: a failure whatever else is set. */
  readonly misconfigured: string | undefined;
}

/** Why the run must fail rather than skip the gate's suites, or `undefined` when it need not. */
export function gateFailure(gate: Gate): string | undefined {
  if (gate.misconfigured !== undefined) return gate.misconfigured;
  if (gate.found === undefined && gate.requiredBy !== undefined) {
    return `${gate.requiredBy} demands the ${gate.name} suites, but ${gate.missing}. ${gate.howToRun}`;
  }
  return undefined;
}

/** Whether an `OCF_SYNC_REQUIRE_*` value asks for the suites: any non-empty value but `0`. */
function demands(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0";
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    return statSync(path).isFile() && (accessSync(path, constants.X_OK), true);
  } catch {
    return false;
  }
}

/**
 * A gate: `named` (the variable's value) must exist when set; otherwise the first of `candidates`
 * that exists is used.
 */
function resolveGate(options: {
  name: string;
  variable: string;
  named: string | undefined;
  candidates: readonly string[];
  exists: (path: string) => boolean;
  what: string;
  requiredBy: string | undefined;
  howToRun: string;
  /** Where the candidates are, for the skip line; by default they are listed. */
  where?: string;
}): Gate {
  const { name, variable, named, candidates, exists, what, requiredBy, howToRun } = options;
  if (named !== undefined && named !== "") {
    const path = resolve(named);
    if (exists(path)) return { name, found: path, missing: "", howToRun, requiredBy, misconfigured: undefined };
    return {
      name,
      found: undefined,
      missing: `${variable}=${named} is not ${what}`,
      howToRun,
      requiredBy,
      misconfigured: `${variable}=${named} is not ${what} (resolved to ${path}); unset it, or point it at one`,
    };
  }
  const found = candidates.find(exists);
  return {
    name,
    found,
    missing: found === undefined ? `${variable} is unset and there is none ${options.where ?? `at ${candidates.join(", ")}`}` : "",
    howToRun,
    requiredBy,
    misconfigured: undefined,
  };
}

const PROJECT_ROOT = resolve(import.meta.dirname, "../..");

/** The third-party reference folder. */
export function conformanceGate(env: Env = process.env, projectRoot = PROJECT_ROOT): Gate {
  return resolveGate({
    name: "conformance",
    variable: "OCF_SYNC_SHARED_DIR",
    named: env.OCF_SYNC_SHARED_DIR,
    candidates: [resolve(projectRoot, "../shared")],
    exists: isFolder,
    what: "a folder",
    requiredBy: demands(env.OCF_SYNC_REQUIRE_CONFORMANCE) ? "OCF_SYNC_REQUIRE_CONFORMANCE=1" : undefined,
    howToRun: "Run them with OCF_SYNC_SHARED_DIR=/path/to/shared npm test",
  });
}

/** Where Chromium or Chrome usually is: Debian/Ubuntu, snap, Fedora, macOS, Windows. */
export const USUAL_CHROMIUM_PATHS: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/snap/bin/chromium",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
];

/** A Chromium executable. */
export function chromiumGate(env: Env = process.env, candidates: readonly string[] = USUAL_CHROMIUM_PATHS): Gate {
  return resolveGate({
    name: "chromium",
    variable: "OCF_SYNC_CHROMIUM",
    named: env.OCF_SYNC_CHROMIUM,
    candidates,
    exists: isExecutable,
    what: "an executable file",
    requiredBy: demands(env.OCF_SYNC_REQUIRE_BROWSER) ? "OCF_SYNC_REQUIRE_BROWSER=1" : undefined,
    howToRun: "Install Chromium (Debian: apt-get install chromium) or run with OCF_SYNC_CHROMIUM=/path/to/chromium npm test",
  });
}

/** `executable`, named by `variable`, else the first on the PATH; demanded by `require` (`OCF_SYNC_REQUIRE_...`). */
function executableGate(env: Env, options: { name: string; executable: string; variable: string; require: string; howToRun: string }): Gate {
  const path = env.PATH ?? "";
  return resolveGate({
    name: options.name,
    variable: options.variable,
    named: env[options.variable],
    candidates: path === "" ? [] : path.split(delimiter).filter((dir) => dir !== "").map((dir) => join(dir, options.executable)),
    exists: isExecutable,
    what: "an executable file",
    requiredBy: demands(env[options.require]) ? `${options.require}=1` : undefined,
    howToRun: options.howToRun,
    where: "on the PATH",
  });
}

/** A `redis-server` executable: `OCF_SYNC_REDIS_SERVER`, else the first on the PATH. */
export function redisGate(env: Env = process.env): Gate {
  return executableGate(env, {
    name: "redis",
    executable: "redis-server",
    variable: "OCF_SYNC_REDIS_SERVER",
    require: "OCF_SYNC_REQUIRE_REDIS",
    howToRun: "Install Redis (Debian: apt-get install redis-server) or run with OCF_SYNC_REDIS_SERVER=/path/to/redis-server npm test",
  });
}

/** moto's S3-compatible server, `moto_server`: `OCF_SYNC_MOTO_SERVER`, else the first on the PATH. */
export function s3Gate(env: Env = process.env): Gate {
  return executableGate(env, {
    name: "s3",
    executable: "moto_server",
    variable: "OCF_SYNC_MOTO_SERVER",
    require: "OCF_SYNC_REQUIRE_S3",
    howToRun: "Install moto's server (pip install 'moto[server]') or run with OCF_SYNC_MOTO_SERVER=/path/to/moto_server npm test",
  });
}

/** Every gate of the test run. */
export function allGates(env: Env = process.env): Gate[] {
  return [conformanceGate(env), chromiumGate(env), redisGate(env), s3Gate(env)];
}
