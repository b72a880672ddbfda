/**
 * Many issuers for the fleet measurements (issue 26): copies of a sample issuer under new ids
 * (`fleet-01`, `fleet-02`, ...), each record's `issuerId` set to its copy's, so that a batch of
 * shard processes has enough requests to meet the quota.
 */
import { loadSampleData, type SampleData, type WireRecord } from "../src/sample-server/server.js";

/** `count` copies of sample issuer `of` (by default 144361: 80 awards and 70 units, 4 requests at 50 a page). */
export async function fleetData(count: number, of = "144361"): Promise<SampleData> {
  const samples = await loadSampleData();
  const source = samples.issuers.get(of);
  if (source === undefined) throw new Error(`no sample issuer ${of}`);
  const issuers = new Map<string, { awards: WireRecord[]; units: WireRecord[] }>();
  for (let i = 1; i <= count; i += 1) {
    const id = `fleet-${String(i).padStart(2, "0")}`;
    const copy = (records: readonly WireRecord[]): WireRecord[] => records.map((record) => ({ ...record, issuerId: id }));
    issuers.set(id, { awards: copy(source.awards), units: copy(source.units) });
  }
  return { issuers };
}
