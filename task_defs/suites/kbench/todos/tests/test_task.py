# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os

import kbtest as kb

# Sorted in byte order: "." < upper case < lower case, so README.md and Helpers.py come before docs/ and api.py.
EXPECTED = [
    "project/.env.example",
    "project/.github/workflows/ci.yml",
    "project/README.md",
    "project/docs/old/changelog.txt",
    "project/docs/release notes.md",
    "project/lib/Helpers.py",
    "project/lib/api.py",
    "project/notes/meeting 2024-05-02.txt",
    "project/scripts/build.sh",
    "project/src/main.c",
    "project/src/parser/lexer.c",
]
HIDDEN = ["project/.env.example", "project/.github/workflows/ci.yml"]
# Files that only mention TODOS, TODO_2024, TODO2, MYTODO, STODO, TODOlist, todo, or have TODO only in the name.
DECOYS = [
    "project/TODO.md",
    "project/docs/design.md",
    "project/lib/units.py",
    "project/notes/ideas.txt",
    "project/scripts/deploy.sh",
    "project/src/util.c",
    "project/tests/test_api.py",
    "project/tests/test_db.py",
]
PRISTINE = {
    'project/.env.example': "63f0a239cf04aa433aafa56c6d8caa00f9a6bc9adbccc43d851d83d2047904e2",
    'project/README.md': "7159ab4ad2e378b6271affbc31738b17f9ea6e5055a84be593c18521f25085ff",
    'project/TODO.md': "f7f95b95fdc3a0e5c85f7ba3b28ab8666a20e13433e4b2135d5e7a9e181f9bc0",
    'project/.github/workflows/ci.yml': "cffed77abbc1fc690d0a61d9cde47f0bc569ca28e5719feee508d05a9eb8eacf",
    'project/docs/design.md': "127915991c629309fe9be1901bca904696f530212a27cf424bf655d2e7f03f36",
    'project/docs/release notes.md': "80e6d15eb87357686f5f958c36d02579396fdd9ce87bee8827b6f9a34d2a5ebd",
    'project/docs/old/changelog.txt': "7b61460ca6d80c0b8a65a9d4a1f081850db7ea1ae804ebb78f53e9ce0206f1c4",
    'project/lib/Helpers.py': "272acdea650f34f03e332aacf8297bd06a8e2bda629be7a8e9b806d40f7e44be",
    'project/lib/api.py': "d09569bb93fa2bf84734c41fb392611b0555ef1825e845317fde4e192da024ae",
    'project/lib/units.py': "6a06ff11d2ecb447112b8b96e575637b5cbf4ff4de19a5ad3fb24f4e03a67c6f",
    'project/notes/ideas.txt': "cb94d473bcfc2c32579daa84b026076e678a645c9986a172966e6cdc97cb5889",
    'project/notes/meeting 2024-05-02.txt': "35fc385ce7f9ada4746468fdb7f6bc35d824374803d74f6aba462016ef704111",
    'project/scripts/build.sh': "03d6cf927cb5e0b02cc282c0688d43d20162f4b10677a6f45eef9e10b2ceee65",
    'project/scripts/deploy.sh': "d964b9fc248ea190993c29a2e29c33a54ca7a18fae7d0176791b72e38a385d0b",
    'project/src/main.c': "cb04f0b6df21a6666cad24a44fd35f4d887bb638b8301999c03ec069ff74bfd1",
    'project/src/util.c': "40c15c783544ef4592e1c660dd7d876da7d10283bbdcbf0fe91da77448c89b1a",
    'project/src/util.h': "50255a59000600bc0afd87e0dce406470cac0820885ce60ac0b0906551730f6e",
    'project/src/parser/lexer.c': "86a5eabc7cc4ac0eae81070273517665b4aa8e9a65d59f5a2b10f07d4aac9a94",
    'project/tests/test_api.py': "db729f5627c5b98571b9998866f67f528b655d0acf8bf1fed90bed3a6eb0e68c",
    'project/tests/test_db.py': "53e31c8b0f22b35967565b069108372e2ce86375679ca00e71991d69e4dd2b88",
}


def lines():
    text = kb.read("answer.txt")
    return [ln.rstrip("\r") for ln in text.strip("\n").split("\n")] if text.strip() else []


@kb.case
def every_matching_file_listed():
    got = set(lines())
    missing = [p for p in EXPECTED if p not in got]
    kb.ok(not missing, "files containing the word TODO missing from answer.txt: %r" % missing)


@kb.case
def hidden_files_included():
    got = set(lines())
    kb.ok(all(p in got for p in HIDDEN), "hidden files with TODO must be listed: %r" % HIDDEN)


@kb.case
def no_decoys_listed():
    wrong = [p for p in lines() if p in DECOYS]
    kb.ok(not wrong, "these files do not contain TODO as a whole, case-sensitive word: %r" % wrong)


@kb.case
def exact_list_in_byte_order():
    kb.eq(lines(), EXPECTED, "answer.txt")


@kb.case
def plain_paths_one_per_line():
    for ln in lines():
        kb.ok(ln.startswith("project/") and ln == ln.strip(),
              "each line must be a bare path starting with project/, got %r" % ln)


@kb.case
def project_left_intact():
    for name, digest in PRISTINE.items():
        kb.ok(os.path.isfile(kb.path(name)), "%s must still exist" % name)
        with open(kb.path(name), "rb") as fh:
            kb.eq(hashlib.sha256(fh.read()).hexdigest(), digest, "content of %s" % name)


kb.main()
