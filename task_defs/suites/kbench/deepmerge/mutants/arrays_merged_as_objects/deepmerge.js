// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

function isPlain(v) {
  return v !== null && typeof v === "object";
}

function copy(v) {
  if (!isPlain(v)) return v;
  const out = Array.isArray(v) ? [] : {};
  for (const key of Object.keys(v)) out[key] = copy(v[key]);
  return out;
}

function deepMerge(a, b) {
  const out = copy(a);
  for (const key of Object.keys(b)) {
    out[key] = isPlain(out[key]) && isPlain(b[key]) ? deepMerge(out[key], b[key]) : copy(b[key]);
  }
  return out;
}

module.exports = deepMerge;
