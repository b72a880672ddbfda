/**
 * The validate benchmark's floor, in a process of its own as each validator runs: what any validator
 * that looks at every object must do at least, and nothing more. It reads the manifest and every file
 * it lists, whole, and `JSON.parse`s each, on one thread: no schema, no MD5, no reference or quantity
 * check. A validator that checks each object of the package on one thread takes longer than this, so
 * the official approach's time over this floor's is the most such a validator can gain on it on this
 * machine.
 *
 *   node --import tsx bench/validate-floor-child.ts PACKAGE_DIR
 *
 * prints one JSON line: { seconds, cpuSeconds, items }.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The package's manifest and the path of every file it lists (`*_files`), in manifest order. */
export function readManifest(packageDir: string): { manifest: Record<string, unknown>; listed: string[] } {
  const manifest = JSON.parse(readFileSync(join(packageDir, "Manifest.ocf.json"), "utf8")) as Record<string, unknown>;
  const listed: string[] = [];
  for (const [key, list] of Object.entries(manifest)) {
    if (!key.endsWith("_files") || !Array.isArray(list)) continue;
    for (const entry of list as { filepath: string }[]) listed.push(join(packageDir, entry.filepath));
  }
  return { manifest, listed };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [packageDir = ""] = process.argv.slice(2);
  const started = performance.now();
  const cpu = process.cpuUsage();
  let items = 0;
  for (const path of readManifest(packageDir).listed) items += (JSON.parse(readFileSync(path, "utf8")) as { items: unknown[] }).items.length;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ seconds, cpuSeconds: (used.user + used.system) / 1e6, items })}\n`);
}
