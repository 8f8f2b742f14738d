# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb

MESSAGE = "Start the field notes: add readme.md"
README = kb.data("readme.md.orig")


def git(*args):
    # HOME is empty in the sandbox, and the folder may belong to another user: trust it explicitly
    rc, out, err = kb.run(["git", "-c", "safe.directory=*", "-C", "notes"] + list(args))
    return rc, out, err


def repo():
    kb.ok(os.path.isdir(kb.path("notes")), "the folder notes/ is missing")
    rc, out, err = git("rev-parse", "--show-toplevel")
    kb.ok(rc == 0, "notes/ is not a git repository: %s" % err.strip()[-200:])
    kb.eq(os.path.realpath(out.strip()), os.path.realpath(kb.path("notes")), "top folder of the repository")


def head_ok():
    repo()
    rc, out, err = git("rev-parse", "--verify", "HEAD")
    kb.ok(rc == 0, "the repository in notes/ has no commit yet")


@kb.case
def notes_is_a_repository():
    repo()


@kb.case
def exactly_one_commit():
    head_ok()
    rc, out, err = git("rev-list", "--count", "HEAD")
    kb.eq(out.strip(), "1", "number of commits on the current branch")


@kb.case
def message_is_exact():
    head_ok()
    rc, out, err = git("log", "-1", "--format=%B")
    kb.eq(out.rstrip("\n"), MESSAGE, "commit message")


@kb.case
def only_readme_tracked():
    head_ok()
    rc, out, err = git("ls-tree", "-r", "--name-only", "HEAD")
    kb.eq(out.split("\n")[:-1] if out.endswith("\n") else out.split("\n"), ["readme.md"], "files in the commit")


@kb.case
def readme_content_committed():
    head_ok()
    rc, out, err = kb.run(["git", "-c", "safe.directory=*", "-C", "notes", "cat-file", "blob", "HEAD:readme.md"])
    kb.eq(out.encode(), README, "readme.md as committed")


@kb.case
def todo_left_untracked():
    # staged counts as tracked: `git add` of both files and a commit of readme.md alone leaves todo.txt in the index
    repo()
    kb.ok(os.path.isfile(kb.path("notes/todo.txt")), "notes/todo.txt must still be there")
    rc, out, err = git("ls-files", "--", "todo.txt")
    kb.eq(out.strip(), "", "notes/todo.txt in the index (it must stay untracked)")


kb.main()
