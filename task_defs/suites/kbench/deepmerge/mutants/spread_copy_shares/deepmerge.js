// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

function isPlain(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function deepMerge(a, b) {
  const out = { ...a };
  for (const key of Object.keys(b)) {
    out[key] = isPlain(a[key]) && isPlain(b[key]) ? deepMerge(a[key], b[key]) : b[key];
  }
  return out;
}

module.exports = deepMerge;
