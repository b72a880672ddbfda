/**
 * The files of an OCF 1.2.0 package: the manifest (which holds the issuer inline and lists every other
 * file with its MD5) and the `{ file_type, items }` files ocf-sync reads and writes.
 */
import { z } from "zod";
import {
  OcfStakeholderSchema,
  OcfStockClassSchema,
  OcfStockLegendTemplateSchema,
  OcfStockPlanSchema,
  OcfValuationSchema,
  OcfVestingTermsSchema,
  OcfIssuerSchema,
} from "./objects.js";
import { OcfCommentsSchema, OcfDateSchema, OcfDateTimeSchema, OcfFileReferenceSchema } from "./primitives.js";
import { OcfTransactionSchema } from "./transactions.js";

/**
 * The OCF version ocf-sync reads and writes; the manifest's `ocf_version` must equal it exactly.
 *
 * @category OCF
 */
export const OCF_VERSION = "1.2.0";

/** The `file_type` values ocf-sync knows. Financings and documents files are not among them. */
export const FILE_TYPES = [
  "OCF_MANIFEST_FILE",
  "OCF_STAKEHOLDERS_FILE",
  "OCF_STOCK_CLASSES_FILE",
  "OCF_STOCK_PLANS_FILE",
  "OCF_STOCK_LEGEND_TEMPLATES_FILE",
  "OCF_VESTING_TERMS_FILE",
  "OCF_VALUATIONS_FILE",
  "OCF_TRANSACTIONS_FILE",
] as const;
export type OcfFileType = (typeof FILE_TYPES)[number];

/** The `{ file_type, items }` file types, i.e. every known file type but the manifest. */
export type OcfItemsFileType = Exclude<OcfFileType, "OCF_MANIFEST_FILE">;

/** The manifest key that lists the files of each type. All seven are required in a 1.2.0 manifest. */
export const MANIFEST_KEY_OF: Readonly<Record<OcfItemsFileType, OcfManifestFileListKey>> = {
  OCF_STAKEHOLDERS_FILE: "stakeholders_files",
  OCF_STOCK_CLASSES_FILE: "stock_classes_files",
  OCF_STOCK_PLANS_FILE: "stock_plans_files",
  OCF_STOCK_LEGEND_TEMPLATES_FILE: "stock_legend_templates_files",
  OCF_VESTING_TERMS_FILE: "vesting_terms_files",
  OCF_VALUATIONS_FILE: "valuations_files",
  OCF_TRANSACTIONS_FILE: "transactions_files",
};

/** The `file_type` of every file a manifest can list: the seven ocf-sync models and the two it does not. */
export type OcfListedFileType = OcfItemsFileType | "OCF_FINANCINGS_FILE" | "OCF_DOCUMENTS_FILE";

/** The `file_type` each manifest list holds; financings and documents files are not modelled, but have a list. */
export const FILE_TYPE_OF_MANIFEST_KEY: ReadonlyMap<string, OcfListedFileType> = new Map<string, OcfListedFileType>([
  ...Object.entries(MANIFEST_KEY_OF).map(([fileType, key]) => [key, fileType as OcfItemsFileType] as const),
  ["financings_files", "OCF_FINANCINGS_FILE"],
  ["documents_files", "OCF_DOCUMENTS_FILE"],
]);

const fileList = z.array(OcfFileReferenceSchema);

/**
 * The package manifest (`Manifest.ocf.json`). Each `*_files` list runs from the file holding the
 * earliest-created objects to the latest; an empty list is valid.
 */
export const OcfManifestSchema = z.strictObject({
  file_type: z.literal("OCF_MANIFEST_FILE"),
  ocf_version: z.literal(OCF_VERSION, { message: `must be "${OCF_VERSION}"` }),
  issuer: OcfIssuerSchema,
  as_of: OcfDateSchema,
  generated_at: OcfDateTimeSchema,
  comments: OcfCommentsSchema.exactOptional(),
  stock_plans_files: fileList,
  stock_legend_templates_files: fileList,
  stock_classes_files: fileList,
  vesting_terms_files: fileList,
  valuations_files: fileList,
  transactions_files: fileList,
  stakeholders_files: fileList,
  // Optional in 1.2.0; ocf-sync never writes them but must not reject a manifest that has them.
  financings_files: fileList.exactOptional(),
  documents_files: fileList.exactOptional(),
});
export type OcfManifest = z.output<typeof OcfManifestSchema>;

/** The manifest keys that list files of a type ocf-sync knows. */
export type OcfManifestFileListKey =
  | "stakeholders_files"
  | "stock_classes_files"
  | "stock_plans_files"
  | "stock_legend_templates_files"
  | "vesting_terms_files"
  | "valuations_files"
  | "transactions_files";

function itemsFile<const T extends OcfItemsFileType, S extends z.ZodType>(fileType: T, item: S) {
  return z.strictObject({ file_type: z.literal(fileType), items: z.array(item) });
}

export const OcfStakeholdersFileSchema = itemsFile("OCF_STAKEHOLDERS_FILE", OcfStakeholderSchema);
export type OcfStakeholdersFile = z.output<typeof OcfStakeholdersFileSchema>;

export const OcfStockClassesFileSchema = itemsFile("OCF_STOCK_CLASSES_FILE", OcfStockClassSchema);
export type OcfStockClassesFile = z.output<typeof OcfStockClassesFileSchema>;

export const OcfStockPlansFileSchema = itemsFile("OCF_STOCK_PLANS_FILE", OcfStockPlanSchema);
export type OcfStockPlansFile = z.output<typeof OcfStockPlansFileSchema>;

export const OcfStockLegendTemplatesFileSchema = itemsFile("OCF_STOCK_LEGEND_TEMPLATES_FILE", OcfStockLegendTemplateSchema);
export type OcfStockLegendTemplatesFile = z.output<typeof OcfStockLegendTemplatesFileSchema>;

export const OcfVestingTermsFileSchema = itemsFile("OCF_VESTING_TERMS_FILE", OcfVestingTermsSchema);
export type OcfVestingTermsFile = z.output<typeof OcfVestingTermsFileSchema>;

export const OcfValuationsFileSchema = itemsFile("OCF_VALUATIONS_FILE", OcfValuationSchema);
export type OcfValuationsFile = z.output<typeof OcfValuationsFileSchema>;

export const OcfTransactionsFileSchema = itemsFile("OCF_TRANSACTIONS_FILE", OcfTransactionSchema);
export type OcfTransactionsFile = z.output<typeof OcfTransactionsFileSchema>;

/** Any file ocf-sync knows: the manifest or one of the seven `{ file_type, items }` files (see types.ts). */
export type { OcfFile } from "./types.js";
