// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

function isPlain(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function clone(v) {
  if (!isPlain(v)) return v;
  const out = {};
  for (const key of Object.keys(v)) out[key] = clone(v[key]);
  return out;
}

function deepMerge(a, b) {
  const out = clone(a);
  for (const key of Object.keys(b)) {
    if (!b[key]) continue;
    out[key] = isPlain(out[key]) && isPlain(b[key]) ? deepMerge(out[key], b[key]) : clone(b[key]);
  }
  return out;
}

module.exports = deepMerge;
