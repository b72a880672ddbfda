/**
 * The JSON files `export` reads besides the API: issuer profiles and a stakeholder directory. Each is
 * checked with zod and a mistake is a usage error naming the file, the JSON path and the value.
 */
import { resolve } from "node:path";
import { z } from "zod";
import type { IssuerProfile, StakeholderEntry } from "../mapping/types.js";
import { UsageError } from "./io.js";
import { readUtf8File } from "./text-file.js";

/** A decimal as a JSON string ("10000000", "0.0001"): share counts and money never travel as JSON numbers. */
const decimalText = z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, "a non-negative decimal as a string, such as \"10000000\" or \"0.0001\"");
const dateText = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date YYYY-MM-DD");

const ShareClassSchema = z.strictObject({
  name: z.string().min(1).optional(),
  classType: z.enum(["COMMON", "PREFERRED"]).optional(),
  authorizedShares: z.union([decimalText, z.enum(["UNLIMITED", "NOT APPLICABLE"])]).optional(),
  votesPerShare: decimalText.optional(),
  seniority: decimalText.optional(),
  parValue: z.strictObject({ amount: decimalText, currency: z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code such as USD") }).optional(),
  idPrefix: z.string().min(1).optional(),
  boardApprovalDate: dateText.optional(),
});

const StockPlanSchema = z.strictObject({
  initialSharesReserved: decimalText.optional(),
  boardApprovalDate: dateText.optional(),
  stockholderApprovalDate: dateText.optional(),
});

const ProfileSchema = z.strictObject({
  legalName: z.string().min(1).optional(),
  dba: z.string().min(1).optional(),
  formationDate: z.string().optional(),
  countryOfFormation: z.string().optional(),
  countrySubdivisionOfFormation: z.string().optional(),
  /** Keyed by the source's shareClassId or by the class name. */
  shareClasses: z.record(z.string(), ShareClassSchema).optional(),
  /** Keyed by the plan name (equityIncentivePlanName). */
  stockPlans: z.record(z.string(), StockPlanSchema).optional(),
});

const RELATIONSHIPS = [
  "ADVISOR", "BOARD_MEMBER", "CONSULTANT", "EMPLOYEE", "EX_ADVISOR", "EX_CONSULTANT", "EX_EMPLOYEE",
  "EXECUTIVE", "FOUNDER", "INVESTOR", "NON_US_EMPLOYEE", "OFFICER", "OTHER",
] as const;

const StakeholderSchema = z.strictObject({
  legalName: z.string().min(1),
  firstName: z.string().min(1).optional(),
  lastName: z.string().min(1).optional(),
  type: z.enum(["INDIVIDUAL", "INSTITUTION"]).optional(),
  currentRelationship: z.enum(RELATIONSHIPS).optional(),
});

/** `{ "<issuerId>": profile, "*": profile for every other issuer }` */
const ProfilesFileSchema = z.record(z.string(), ProfileSchema);
/** `{ "<stakeholderId>": entry }` for every issuer, or `{ "<issuerId>": { "<stakeholderId>": entry } }`. */
const StakeholdersFileSchema = z.union([
  z.record(z.string(), StakeholderSchema),
  z.record(z.string(), z.record(z.string(), StakeholderSchema)),
]);

/** The JSON of the file an option names, and its path as resolved (as every path the command line prints is). */
async function readJson(cwd: string, option: string, file: string): Promise<{ json: unknown; path: string }> {
  const path = resolve(cwd, file);
  const text = await readUtf8File(option, path);
  try {
    return { json: JSON.parse(text) as unknown, path };
  } catch (error) {
    throw new UsageError(`--${option} ${path} is not JSON: ${(error as Error).message}`);
  }
}

function explain(option: string, path: string, error: z.ZodError): UsageError {
  const lines = error.issues.slice(0, 5).map((issue) => `  $${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}: ${issue.message}`);
  return new UsageError(`--${option} ${path} is not valid:\n${lines.join("\n")}`);
}

/** Looks up the issuer profile of each issuer: its own entry, else `"*"`. */
export type ProfileLookup = (issuerId: string) => IssuerProfile | undefined;
/** Looks up the stakeholder directory of each issuer. */
export type DirectoryLookup = (issuerId: string) => ReadonlyMap<string, StakeholderEntry> | undefined;

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export async function readIssuerProfiles(cwd: string, file: string | undefined): Promise<ProfileLookup> {
  if (file === undefined) return () => undefined;
  const { json, path } = await readJson(cwd, "issuer-profile", file);
  const parsed = ProfilesFileSchema.safeParse(json);
  if (!parsed.success) throw explain("issuer-profile", path, parsed.error);
  const profiles = new Map(Object.entries(parsed.data).map(([id, p]) => [id, stripUndefined(p) as IssuerProfile]));
  return (issuerId) => profiles.get(issuerId) ?? profiles.get("*");
}

export async function readStakeholderDirectory(cwd: string, file: string | undefined): Promise<DirectoryLookup> {
  if (file === undefined) return () => undefined;
  const { json: raw, path } = await readJson(cwd, "stakeholders", file);
  const flat = z.record(z.string(), StakeholderSchema).safeParse(raw);
  const toMap = (entries: Record<string, z.infer<typeof StakeholderSchema>>): ReadonlyMap<string, StakeholderEntry> =>
    new Map(Object.entries(entries).map(([id, e]) => [id, stripUndefined(e) as StakeholderEntry]));
  if (flat.success) {
    const directory = toMap(flat.data);
    return () => directory;
  }
  const nested = StakeholdersFileSchema.safeParse(raw);
  if (!nested.success) throw explain("stakeholders", path, flat.error);
  const byIssuer = new Map(Object.entries(nested.data as Record<string, Record<string, z.infer<typeof StakeholderSchema>>>).map(([issuer, e]) => [issuer, toMap(e)]));
  return (issuerId) => byIssuer.get(issuerId);
}
