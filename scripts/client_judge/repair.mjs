// hey-api writes every `\uXXXX` of its printed output back as the raw
// character (hey-api#4431): the document's text patterns exclude control and
// direction characters by `\u` escapes, and a raw U+2028 ends a regex literal
// (and raw controls make the file unreadable). The characters those patterns
// name are written as escapes again, in the generated zod module only; a
// newline is never one of them, so the file's own lines stay.
//
// Usage: node repair.mjs FILE
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2];
const text = readFileSync(file, 'utf8');
const unprintable = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u2028-\u202E\u2066-\u2069\uFEFF]/g;
let repaired = 0;
const fixed = text.replace(unprintable, (c) => {
  repaired += 1;
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
});
writeFileSync(file, fixed);
console.log(`repair: ${repaired} raw characters written as \\u escapes again in ${file}`);
