/** The version of ocf-sync that runs, read once from its package.json (`src/` and `dist/` sit beside it). */
import { readFileSync } from "node:fs";

let version: string | undefined;

/** This package's version, such as `0.1.0`: what `--version` prints, the User-Agent and every run record state. */
export function ocfSyncVersion(): string {
  if (version === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: unknown };
      version = typeof pkg.version === "string" ? pkg.version : "0.0.0";
    } catch {
      version = "0.0.0";
    }
  }
  return version;
}
