// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
'use strict';

function slugify(text) {
  if (typeof text !== 'string') {
    throw new TypeError('slugify: expected a string but got ' + (text === null ? 'null' : typeof text));
  }
  let out = '';
  let gap = false;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) {
      code += 32;
    }
    const keep = (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
    if (!keep) {
      gap = true;
      continue;
    }
    if (gap && out.length > 0) {
      out += '-';
    }
    gap = false;
    out += String.fromCharCode(code);
  }
  return out;
}

module.exports = slugify;
