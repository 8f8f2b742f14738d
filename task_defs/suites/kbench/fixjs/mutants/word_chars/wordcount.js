// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

// Count how often each word occurs in a text: returns an object word -> count.
function wordCount(text) {
  if (typeof text !== "string") {
    throw new TypeError("wordCount expects a string");
  }
  const counts = new Map();
  for (const word of text.toLowerCase().match(/\w+/g) || []) {
    counts.set(word, (counts.get(word) || 0) + 1);
  }
  return Object.fromEntries(counts);
}

module.exports = wordCount;
