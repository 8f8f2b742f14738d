// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

function isPlain(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

function copyOf(v) {
  return isPlain(v) ? deepMerge(v, {}) : v;
}

function deepMerge(a, b) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return Object.fromEntries(
    [...keys].map((k) => {
      if (own(a, k) && own(b, k)) {
        return [k, isPlain(a[k]) && isPlain(b[k]) ? deepMerge(a[k], b[k]) : copyOf(b[k])];
      }
      return [k, copyOf(own(b, k) ? b[k] : a[k])];
    })
  );
}

module.exports = deepMerge;
