// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

function isPlain(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function deepMerge(a, b) {
  for (const key of Object.keys(b)) {
    if (isPlain(a[key]) && isPlain(b[key])) {
      a[key] = deepMerge(a[key], b[key]);
    } else {
      a[key] = b[key];
    }
  }
  return a;
}

module.exports = deepMerge;
