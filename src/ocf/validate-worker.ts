/**
 * A worker thread of `validate-workers.ts`: parses runs of elements of `items` and returns their
 * facts (`item-facts.ts`), one message for each message received, in order.
 */
import { parentPort } from "node:worker_threads";
import { elementsFacts } from "./item-facts.js";
import type { ElementsReply, ElementsRequest } from "./validate-workers.js";

const port = parentPort;
if (port === null) throw new Error("validate-worker.ts runs as a worker thread of validate-workers.ts");
port.on("message", (request: ElementsRequest) => {
  const reply: ElementsReply = { facts: elementsFacts(request.framed, request.schemaType), framed: request.framed };
  port.postMessage(reply, [request.framed.buffer]);
});
const ready: ElementsReply = { ready: true };
port.postMessage(ready);
