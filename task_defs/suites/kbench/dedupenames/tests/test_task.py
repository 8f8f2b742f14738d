# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib

import kbtest as kb

# Byte order: upper-case ASCII, then lower case, then names that start with a non-ASCII letter.
EXPECTED = [
    "Aaron Young",
    "Ana María López",
    "Anna Smith",
    "Anne Marie Dubois",
    "Anne\u00a0Marie Dubois",  # a no-break space is not whitespace by the prompt's rules
    "Bob O'Brien",
    "Chen Wei",
    "De La Cruz Maria",
    "Dmitri Ivanov",
    "Jean Luc Picard",
    "Jean-Luc Picard",
    "Kofi Mensah",
    "Lena #2 Fischer",
    "Lena Fischer",
    "Mary Jane Watson",
    "MaryJane Watson",
    "Olafur Arnalds",
    "Priya Patel",
    "Sven Larsson",
    "X Æ A-12 Musk",
    "Zara Ahmed",
    "Zoe Muller",
    "Zoë Müller",
    "aaron young",
    "anna smith",
    "chen wei",
    "de la Cruz Maria",
    "zara ahmed",
    "Émile Zola",
    "Ólafur Arnalds",
    "Łukasz Nowak",
]
NAMES_SHA256 = "e3bbf61c86463cf3f706b9dacc6cda1bb7703def51a05bf2b5781ec945e2f028"


def lines():
    with open(kb.path("unique_names.txt"), encoding="utf-8", errors="replace", newline="") as fh:
        text = fh.read()
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


@kb.case
def every_distinct_name_once():
    got = lines()
    kb.eq(sorted(set(got)), sorted(EXPECTED), "the set of names in unique_names.txt")


@kb.case
def no_duplicates():
    got = lines()
    dups = sorted({n for n in got if got.count(n) > 1})
    kb.ok(not dups, "names listed more than once: %r" % dups)


@kb.case
def case_variants_kept_apart():
    got = set(lines())
    for a, b in (("Anna Smith", "anna smith"), ("Zara Ahmed", "zara ahmed"), ("Chen Wei", "chen wei")):
        kb.ok(a in got and b in got, "%r and %r are different names; both must be listed" % (a, b))


@kb.case
def clean_lines_only():
    for ln in lines():
        kb.ok(ln != "" and ln == ln.strip(" \t\r") and "  " not in ln and "\t" not in ln,
              "each line must be one cleaned-up name (no blank lines, no extra whitespace), got %r" % ln)
        kb.ok(not ln.startswith("#"), "comment lines are not names, got %r" % ln)


@kb.case
def byte_order():
    kb.eq(lines(), EXPECTED, "unique_names.txt in byte order")


@kb.case
def names_file_left_intact():
    with open(kb.path("names.txt"), "rb") as fh:
        kb.eq(hashlib.sha256(fh.read()).hexdigest(), NAMES_SHA256, "sha256 of names.txt (it must not be changed)")


kb.main()
