/**
 * The raw backup format of `ocf-sync pull`: newline-delimited JSON, one line per record exactly as the
 * service sent it, tagged with its kind and issuer. Invalid records are kept too, marked quarantined
 * with their issues, so a backup never loses anything the service returned.
 */
import type { SourceIssue } from "../source/errors.js";
import type { RecordKind } from "../source/kinds.js";
import type { IssuerPull } from "./pull-issuer.js";

export interface NdjsonRecordLine {
  kind: RecordKind;
  issuerId: string;
  id: string | undefined;
  /** Present and true when the record failed validation. */
  quarantined?: true;
  issues?: SourceIssue[];
  record: unknown;
}

/** The NDJSON lines (each ending in `\n`) of one pulled issuer: valid records, then quarantined ones. */
export function* issuerPullToNdjson(pull: IssuerPull): Generator<string> {
  for (const { kind, id, raw } of pull.raw) {
    const line: NdjsonRecordLine = { kind, issuerId: pull.issuerId, id, record: raw };
    yield `${JSON.stringify(line)}\n`;
  }
  for (const q of pull.quarantined) {
    const line: NdjsonRecordLine = {
      kind: q.kind,
      issuerId: q.issuerId,
      id: q.recordId,
      quarantined: true,
      issues: q.error.issues,
      record: q.raw,
    };
    yield `${JSON.stringify(line)}\n`;
  }
}
