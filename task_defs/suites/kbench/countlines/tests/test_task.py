# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os
import shutil
import tempfile

import kbtest as kb

SCRIPT = "countlines.sh"


def count_file(content, name="input.txt"):
    """Write content (bytes) to a fresh temporary file, run the script on it, return (rc, out, err)."""
    tmp = tempfile.mkdtemp(prefix="kbtest-countlines-")
    try:
        p = os.path.join(tmp, name)
        with open(p, "wb") as fh:
            fh.write(content)
        return kb.run(["bash", SCRIPT, p])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def expect_count(content, want, what, name="input.txt"):
    rc, out, err = count_file(content, name)
    kb.eq(rc, 0, "%s: exit status (stderr %r)" % (what, err[-200:]))
    kb.eq(out, "%d\n" % want, "%s: stdout (only the number and one newline)" % what)


@kb.case
def ordinary_files():
    expect_count(b"one\ntwo\nthree\n", 3, "three lines")
    expect_count(b"alpha\n\nbeta\n\n\ngamma\n", 3, "lines with empty lines between")
    expect_count(b"".join(b"line %d\n" % i for i in range(2500)), 2500, "2500 lines")


@kb.case
def whitespace_only_lines_are_blank():
    expect_count(b"a\n   \n\t\n \t \nb\n", 2, "spaces and tabs only")
    expect_count(b"x\r\n\r\n  \r\ny\r\n", 2, "CRLF line endings with blank lines")
    expect_count(b"  indented\n\tstarts with a tab\n.\n", 3, "lines with leading whitespace and content")


@kb.case
def last_line_without_newline():
    expect_count(b"first\nsecond", 2, "no newline after the last line")
    expect_count(b"only", 1, "a single line without newline")
    expect_count(b"a\n\n   ", 1, "a blank last line without newline")


@kb.case
def zero_lines_exit_zero():
    expect_count(b"", 0, "an empty file")
    expect_count(b"\n\n \n\t\n", 0, "a file of blank lines")


@kb.case
def path_with_spaces():
    expect_count(b"one\n\ntwo\n", 2, "a path with spaces", name="my notes file.txt")


@kb.case
def relative_path():
    name = ".kbtest countlines input.txt"  # a name the task never uses, in the work folder
    try:
        with open(kb.path(name), "wb") as fh:
            fh.write(b"a\n\nb\nc\n")
        rc, out, err = kb.run(["bash", SCRIPT, name])
    finally:
        if os.path.exists(kb.path(name)):
            os.remove(kb.path(name))
    kb.eq(rc, 0, "relative path: exit status (stderr %r)" % err[-200:])
    kb.eq(out, "3\n", "relative path: stdout")


@kb.case
def missing_file_and_no_argument():
    tmp = tempfile.mkdtemp(prefix="kbtest-countlines-")
    try:
        rc, out, err = kb.run(["bash", SCRIPT, os.path.join(tmp, "does-not-exist.txt")])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    kb.eq(rc, 1, "missing file: exit status")
    kb.eq(out, "", "missing file: stdout")
    kb.ok(err.strip() != "", "missing file: expected an error message on stderr")
    rc, out, err = kb.run(["bash", SCRIPT])
    kb.eq(rc, 1, "no argument: exit status")
    kb.eq(out, "", "no argument: stdout")
    kb.ok(err.strip() != "", "no argument: expected an error message on stderr")


kb.main()
