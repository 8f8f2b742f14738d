# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import re

import kbtest as kb

EXPECTED = [
    "alice@example.com",
    "billing@vendor.example.co.uk",
    "bob.smith@mail.example.org",
    "carol+newsletter@shop.example.net",
    "eve.o_brien@vendor.example.co.uk",
    "frank.ng@vendor.example.co.uk",
    "grace.hopper@navy.example.mil",
    "heidi_99@mail2.example.com",
    "ivan-petrov@dev-team.example.org",
    "judy%ops@relay.example.net",
    "judy@ops.example.net",
    "legal@corp.example.io",
    "noreply@github.com",
    "peggy@example.com",
    "procurement@corp.example.io",
]
NOT_ADDRESSES = ["root@localhost", "a@b.c", "x@y.z", "5@3.50", "support@", "@acme_hq"]
ADDRESS = re.compile(r"[a-z0-9._%+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,}")
NOTES_SHA256 = "6a214df180a076ee1f1a841f466f606ef7bd20766c6daa0606b5bfec1ce2a905"


def lines():
    text = kb.read("answer.txt")
    return [ln.rstrip("\r") for ln in text.strip("\n").split("\n")] if text.strip() else []


@kb.case
def every_address_found():
    got = {ln.strip().lower() for ln in lines()}
    missing = [a for a in EXPECTED if a not in got]
    kb.ok(not missing, "addresses missing from answer.txt: %r" % missing)


@kb.case
def no_non_addresses():
    got = [ln.strip().lower() for ln in lines()]
    # every line must be an address by the prompt's grammar: no text around it, no dotless or numeric domain
    bad = [ln for ln in got if ln in NOT_ADDRESSES or not ADDRESS.fullmatch(ln)]
    kb.ok(not bad, "these are not addresses (or carry punctuation from the text): %r" % bad)


@kb.case
def lower_case_and_unique():
    got = lines()
    kb.ok(all(ln == ln.lower() for ln in got), "addresses must be written in lower case: %r"
          % [ln for ln in got if ln != ln.lower()])
    dups = sorted({ln for ln in got if got.count(ln) > 1})
    kb.ok(not dups, "addresses listed more than once: %r" % dups)


@kb.case
def exact_list_in_byte_order():
    kb.eq(lines(), EXPECTED, "answer.txt")


@kb.case
def notes_left_intact():
    with open(kb.path("notes.txt"), "rb") as fh:
        kb.eq(hashlib.sha256(fh.read()).hexdigest(), NOTES_SHA256, "sha256 of notes.txt (it must not be changed)")


kb.main()
