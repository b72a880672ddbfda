/** The stamp every `--json` document and report opens with (`src/document-stamp.ts`), as a schema's fields. */
import { z } from "zod";

export const DOCUMENT_STAMP_SHAPE = {
  ocfSyncVersion: z.string().describe("the ocf-sync version that wrote the document"),
  generatedAt: z.string().datetime({ offset: true }).describe("when it was written (an RFC 3339 instant; pinned by --generated-at where a command takes it)"),
};
