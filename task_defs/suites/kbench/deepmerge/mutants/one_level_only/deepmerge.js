// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

function isPlain(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function deepMerge(a, b) {
  const out = JSON.parse(JSON.stringify(a));
  for (const key of Object.keys(b)) {
    const fromB = JSON.parse(JSON.stringify(b[key] === undefined ? null : b[key]));
    out[key] = isPlain(out[key]) && isPlain(fromB) ? { ...out[key], ...fromB } : fromB;
  }
  return out;
}

module.exports = deepMerge;
