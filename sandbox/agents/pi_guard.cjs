// Loaded into pi before its own code (node --require). pi runs as the same uid as the model's commands, and being
// non-dumpable (sandbox/agents/pi.py) keeps them out of its memory and /proc files; two doors stay, closed here.
"use strict";

// SIGUSR1 opens node's inspector on 127.0.0.1:9229, where any process of the sandbox could then run code inside pi.
// A listener of our own replaces node's: the signal does nothing (node 20 has no --disable-sigusr1).
process.on("SIGUSR1", () => {});

// pi's children inherit its environment, and with it the session token the model proxy knows pi by
// (KBENCH_PI_KEY, named in models.json). Every way to start a child gets that one variable taken out.
const TOKEN = "KBENCH_PI_KEY";
const childProcess = require("child_process");

function withoutToken(env) {
  const copy = { ...(env || process.env) };
  delete copy[TOKEN];
  return copy;
}

// (file[, args][, options][, callback]) or (command[, options][, callback]): the options object is the first plain
// object after the first argument; where there is none, one goes where the function looks for it.
function guarded(fn, takesArgs) {
  return function (...argv) {
    let i = argv.findIndex((a, k) => k > 0 && a !== null && typeof a === "object" && !Array.isArray(a));
    if (i < 0) {
      i = takesArgs && Array.isArray(argv[1]) ? 2 : 1;
      if (argv[i] == null) argv[i] = {};
      else argv.splice(i, 0, {});
    }
    argv[i] = { ...argv[i], env: withoutToken(argv[i].env) };
    return fn.apply(this, argv);
  };
}

for (const [name, takesArgs] of [["spawn", true], ["spawnSync", true], ["execFile", true], ["execFileSync", true],
                                 ["fork", true], ["exec", false], ["execSync", false]]) {
  childProcess[name] = guarded(childProcess[name], takesArgs);
}
// pi imports these as ES module bindings: make those see the guarded functions too.
require("module").syncBuiltinESMExports();
