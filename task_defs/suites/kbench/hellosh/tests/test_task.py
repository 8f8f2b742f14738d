# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import os

import kbtest as kb

os.environ.pop("GREET_NAME", None)  # kb.run passes os.environ on; the "unset" case needs it gone


def hello(name=None):
    env = None if name is None else {"GREET_NAME": name}
    rc, out, err = kb.run(["bash", "hello.sh"], env=env)
    kb.eq(rc, 0, "exit status of `bash hello.sh` with GREET_NAME=%r (stderr %r)" % (name, err.strip()[-200:]))
    return out


@kb.case
def greets_the_name():
    kb.eq(hello("Ada"), "Hello, Ada!\n", "output with GREET_NAME=Ada")
    kb.eq(hello("Grace"), "Hello, Grace!\n", "output with GREET_NAME=Grace")


@kb.case
def world_when_unset():
    kb.eq(hello(None), "Hello, world!\n", "output with GREET_NAME unset")


@kb.case
def world_when_empty():
    kb.eq(hello(""), "Hello, world!\n", "output with GREET_NAME set to the empty string")


@kb.case
def name_kept_verbatim():
    # spaces, a glob, a backslash and a percent sign must come out as they are
    for name in ("Mary  Ann", "*", "O'Neil \\n 100%", "-n"):
        kb.eq(hello(name), "Hello, %s!\n" % name, "output with GREET_NAME=%r" % name)


@kb.case
def outer_spaces_kept():
    # "exactly as it is": spaces at the ends stay, and a name of only spaces is not empty
    for name in ("  Ada  ", "\tGrace", "   "):
        kb.eq(hello(name), "Hello, %s!\n" % name, "output with GREET_NAME=%r" % name)


kb.main()
