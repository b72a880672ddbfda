/**
 * The reading of an OCF package file, `{ "file_type": …, "items": [ … ] }`, by the one JSON framing
 * (`json-framing.ts`): each top-level member and each element of `items` as soon as it is complete,
 * parsed, with the memory of the largest single object whatever the file's size. A file is accepted
 * exactly when `JSON.parse` of its whole text would be, with one addition: an `items` key given twice
 * is refused, because readers that keep the last one and readers that stream would disagree.
 */
import { JsonObjectScanner, type JsonObjectScannerOptions } from "../json-framing.js";

/** What the scanner found in a file, in order. */
export interface JsonItemsHandler {
  /** A top-level member of the file object other than an `items` array, parsed. */
  member(key: string, value: unknown): void;
  /** The `items` member is an array: its elements follow through `item`. */
  itemsStart(): void;
  /** One element of `items`, parsed, with its index and the byte range it spans in the file (-1, -1 when parsed in a run with others). */
  item(index: number, value: unknown, startByte: number, endByte: number): void;
  /** The file's value is not a JSON object (an array, a string, …): here it is, parsed. */
  notAnObject(value: unknown): void;
}

/**
 * A scanner of one file (`push` each chunk, then `end`; read `error` after either) that hands
 * `handler` its members and the elements of its `items`.
 */
export function jsonItemsScanner(handler: JsonItemsHandler, options: JsonObjectScannerOptions = {}): JsonObjectScanner {
  let itemsSeen = false;
  return new JsonObjectScanner(
    {
      key: (key, startByte) => {
        if (key !== "items") return undefined;
        if (itemsSeen) return `is not a readable OCF file (the key "items" appears twice, at byte ${startByte}; readers would disagree on which one counts)`;
        itemsSeen = true;
        return undefined;
      },
      streams: (key) => key === "items",
      member: (key, value) => handler.member(key, value),
      arrayStart: () => handler.itemsStart(),
      element: (index, value, startByte, endByte) => handler.item(index, value, startByte, endByte),
      arrayEnd: () => {},
      notAnObject: (value) => handler.notAnObject(value),
    },
    options,
  );
}
