/**
 * `npm run bench`: ocf-sync's benchmarks. Speed lives here, never in timed tests. Each figure is reported
 * beside a baseline measured in the same run on the same machine, because absolute times on shared
 * machines are noise.
 *
 *   npm run bench                 all sections
 *   npm run bench -- parse        only record parsing against a JSON round trip
 *   npm run bench -- mapping      mapping + package bytes against JSON.parse + JSON.stringify
 *   npm run bench -- export       export of 10,000 and 100,000 generated records: peak memory, time against the floor
 *   npm run bench -- validate     validate against the official validator's approach; peak memory at 10,000 and 100,000 records
 *   npm run bench -- pull         only the pull throughput section
 *   npm run bench -- reconcile    reconcile of 2,000, 10,000 and 30,000 generated records: peak memory, time against an export
 *   npm run bench -- sync         the sync on a generated issuer (10,000 and 100,000 records) against a full export
 *   npm run bench -- quota        only the rate-limit section (about 75 s: it must outlast a minute window)
 *   npm run bench -- fleet        4 shard processes on one credential against 1 process (about 5 min)
 */
import { benchExport } from "./export.js";
import { benchMapping } from "./mapping.js";
import { benchParse } from "./parse.js";
import { benchPullThroughput } from "./pull-throughput.js";
import { benchFleetQuota } from "./fleet-quota.js";
import { benchQuotaShare } from "./quota-share.js";
import { benchReconcile } from "./reconcile.js";
import { benchSync } from "./sync.js";
import { benchValidate } from "./validate.js";

const sections: Record<string, () => Promise<string>> = {
  parse: benchParse,
  mapping: benchMapping,
  export: benchExport,
  validate: benchValidate,
  pull: benchPullThroughput,
  reconcile: benchReconcile,
  quota: benchQuotaShare,
  fleet: benchFleetQuota,
  sync: benchSync,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const chosen = wanted.length === 0 ? Object.keys(sections) : wanted;
for (const name of chosen) {
  const run = sections[name];
  if (run === undefined) {
    process.stderr.write(`unknown bench section ${JSON.stringify(name)}; choose from ${Object.keys(sections).join(", ")}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n## ${name}\n\n`);
  process.stdout.write(`${await run()}\n`);
}
