import { startSampleServer } from "../../src/sample-server/server.js";
import { GENERATED_ISSUER_ID, generateIssuer } from "../generated-issuer.js";
const n = Number(process.argv[2]);
const server = await startSampleServer({ port: 0, data: { issuers: new Map([[GENERATED_ISSUER_ID, generateIssuer(n)]]) } });
console.log(server.url);
