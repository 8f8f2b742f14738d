// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"use strict";

// Count how often each word occurs in a text: returns an object word -> count.
function wordCount(text) {
  if (typeof text !== "string") {
    throw new TypeError("wordCount expects a string");
  }
  const counts = {};
  const own = Object.prototype.hasOwnProperty;
  for (const word of text.toLowerCase().split(/[^a-z]+/)) {
    if (word === "") {
      continue;
    }
    counts[word] = own.call(counts, word) ? counts[word] + 1 : 1;
  }
  return counts;
}

module.exports = wordCount;
