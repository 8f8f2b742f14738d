// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
'use strict';

function slugify(text) {
  if (typeof text !== 'string') {
    throw new TypeError('slugify needs a string');
  }
  const plain = text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  const lower = plain.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return lower.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

module.exports = slugify;
