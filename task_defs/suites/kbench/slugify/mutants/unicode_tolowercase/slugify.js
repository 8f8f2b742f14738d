// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
'use strict';

function slugify(text) {
  if (typeof text !== 'string') {
    throw new TypeError('slugify needs a string');
  }
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

module.exports = slugify;
