#!/usr/bin/env node
// The ocf-sync command. Deliberately CommonJS in ES5 syntax, loading nothing first: any Node.js can run
// it far enough to say in one line that it is too old, instead of failing on syntax or APIs it lacks.
// The CLI itself (ESM, in dist/) is loaded by ./start.cjs only once the version is known to be enough.
"use strict";

var range = require("../package.json").engines.node; // ">=MAJOR.MINOR[.PATCH]"
var wanted = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range);
var have = process.versions.node.split(".").map(Number);

function older(a, b) {
  for (var i = 0; i < 3; i += 1) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) < (b[i] || 0);
  }
  return false;
}

if (wanted !== null && older(have, [Number(wanted[1]), Number(wanted[2]), Number(wanted[3] || 0)])) {
  process.stderr.write(
    "ocf-sync needs Node.js " + range.replace(/^>=\s*/, "") + " or newer, but this is Node.js " + process.versions.node +
      " (" + process.execPath + "); install a current Node.js from https://nodejs.org\n"
  );
  process.exit(1);
}

require("./start.cjs");
