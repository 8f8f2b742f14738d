"""The judging boundary: the one place where material an agent or a model made becomes a verdict.

Every kind that grades (hidden tests, reward readers, verification commands, shell oracles, parsers of replies and
answer files, the LLM judge's prompt, the importer of results files, the board's reads of records) goes through the
helpers of this package and keeps its rules. A new kind that needs something these helpers do not give extends
them here, with a `kbench selftest` family that attacks the new path; it never grows a side path of its own.

The rules:

1. **Nothing the agent wrote is imported or run by the judge.** An interpreter or command the judge starts runs
   isolated (Python's `-I`: no current folder, no script folder, no PYTHON* variables, no user site), with the
   fixed system PATH (`commands.JUDGE_PATH`), from a current folder the agent cannot write; the judge's own files
   lie outside the work folder, which is passed to it as data (a path argument), never as its current folder.
2. **The verdict travels on a channel only the judge writes**, never the agent's stdout/stderr and never a file in
   the work folder, and it carries the nonce the grader handed over. A case-level score is the judge's own count,
   never parsed from output the agent's processes share.
3. **Files the agent made are read without following links** at any component (`files.read_agent_file`), regular
   files only, size-capped; or read inside the sandbox as the agent's uid.
4. **Agent and model text is parsed with bounded size and depth** (`parse.bounded_json`, `parse.bounded_yaml`).
   A parse failure is the model's (invalid or wrong), never infra: infra is only what the server or the harness did.
5. **A program witness names what the kernel executed**, resolved to the system's program; shell functions, aliases,
   hashes, links and look-alike scripts are not the program.
6. **The LLM judge receives a reply as quoted data** under a fence the reply cannot predict, criteria first
   (`fence.fenced`); a judge reply that does not parse is retried and, failing that, recorded as a judge failure.
7. **Imported rows are validated strictly** (no unknown fields, numeric bounds), never carry host paths, and the
   board reads only inside the runs root it owns, without following links.
"""
