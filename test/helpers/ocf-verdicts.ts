/**
 * Assertions that OCF output is valid, by ocf-sync's own OCF 1.2.0 schemas (every test) or by the
 * official JSON Schemas (conformance suites only: see official-ocf.ts). Each failure names the object
 * or file and every issue.
 */
import { expect } from "vitest";
import type { MappedIssuer } from "../../src/mapping/types.js";
import { validateOcfFile, validateOcfObject } from "../../src/ocf/schemas.js";

/** Every object of a mapped issuer, the issuer first. */
export const mappedObjects = (
  mapped: MappedIssuer,
): (MappedIssuer["issuer"] | MappedIssuer["stakeholders" | "stockClasses" | "stockPlans" | "vestingTerms" | "transactions"][number])[] => [
  mapped.issuer,
  ...mapped.stakeholders,
  ...mapped.stockClasses,
  ...mapped.stockPlans,
  ...mapped.vestingTerms,
  ...mapped.transactions,
];

/** An object's label in a failure message: its id when it has one. */
export const labelOf = (object: unknown): string => String((object as { id?: unknown } | null)?.id ?? JSON.stringify(object)?.slice(0, 80));

/** An OCF file, parsed, with the name it is reported under. */
export interface NamedOcfFile {
  name: string;
  json: unknown;
}

/** Parses files held as text or bytes into `NamedOcfFile`s. */
export function parsedFiles(files: Iterable<readonly [string, string | Uint8Array]>): NamedOcfFile[] {
  return [...files].map(([name, content]) => ({
    name,
    json: JSON.parse(typeof content === "string" ? content : new TextDecoder().decode(content)) as unknown,
  }));
}

/** Every object passes ocf-sync's schemas, unchanged. */
export function expectOcfSyncValidObjects(objects: readonly unknown[]): void {
  for (const object of objects) expect(validateOcfObject(object), labelOf(object)).toEqual({ ok: true, value: object });
}

/** Every file passes ocf-sync's schemas whole, and each of its items on its own. */
export function expectOcfSyncValidFiles(files: readonly NamedOcfFile[]): void {
  for (const { name, json } of files) {
    expect(validateOcfFile(json), name).toEqual({ ok: true, value: json });
    expectOcfSyncValidObjects((json as { items?: unknown[] }).items ?? []);
  }
}
