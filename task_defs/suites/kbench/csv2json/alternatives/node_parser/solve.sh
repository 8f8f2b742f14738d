# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
node - <<'JS'
const fs = require("fs");
const text = fs.readFileSync("people.csv", "utf8");
const records = [];
let row = [], field = "", quoted = false;
for (let i = 0; i < text.length; i++) {
  const c = text[i];
  if (quoted) {
    if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
    else if (c === '"') quoted = false;
    else field += c;
  } else if (c === '"') quoted = true;
  else if (c === ",") { row.push(field); field = ""; }
  else if (c === "\n" || c === "\r") {
    if (c === "\r" && text[i + 1] === "\n") i++;
    row.push(field); field = "";
    records.push(row); row = [];
  } else field += c;
}
if (field !== "" || row.length) { row.push(field); records.push(row); }
const [header, ...data] = records.filter((r) => !(r.length === 1 && r[0] === ""));
const out = data.map((r) => Object.fromEntries(header.map((k, j) => [k, r[j] ?? ""])));
const ascii = JSON.stringify(out).replace(/[\u007f-\uffff]/g, (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
fs.writeFileSync("people.json", ascii + "\n");
JS
