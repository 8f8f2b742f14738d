# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os
import stat

import kbtest as kb

EXPECTED = """STOCK REPORT
category        items        value
books              41       487.55
garden tools       37       379.94
kitchen            71       499.54
stationery        175       156.16
toys               27       310.05
TOTAL             351      1833.24
check 560850
"""
PRISTINE = {
    "tool.sh": "b55474d0e914c524669413487fbb715468550a4fec80fcc84a21e8a3450c2317",
    "items.csv": "e9f0fbb87b627d68b57745e9dd3e9c0ef04076fd2192e596f00ccdbf640d0fd8",
}


def sha(name):
    with open(kb.path(name), "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


@kb.case
def tool_is_executable():
    mode = os.stat(kb.path("tool.sh")).st_mode
    kb.ok(mode & stat.S_IXUSR, "tool.sh must be executable by its owner (mode is %o)" % stat.S_IMODE(mode))


@kb.case
def output_is_the_report():
    # "exactly as printed": the final newline the script prints is part of it
    kb.eq(kb.read("output.txt"), EXPECTED, "output.txt")


@kb.case
def output_has_no_error_messages():
    text = kb.read("output.txt")
    kb.ok("tool.sh:" not in text, "output.txt must hold standard output only, not the script's messages on stderr")
    kb.ok(text.startswith("STOCK REPORT"), "output.txt must start with the report's first line")


@kb.case
def inputs_not_edited():
    for name, digest in PRISTINE.items():
        kb.eq(sha(name), digest, "sha256 of %s (it must not be edited)" % name)


kb.main()
