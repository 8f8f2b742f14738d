# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

ANSWER = "56"  # lines whose level field is ERROR; several INFO/WARN/DEBUG lines mention ERROR in the message
ERROR_LINES = [ln for ln in kb.data("app.log.orig").decode("utf-8").splitlines()
               if len(ln.split()) > 1 and ln.split()[1] == "ERROR"]
assert len(ERROR_LINES) == int(ANSWER)


def error_lines():
    kb.ok(kb.exists("errors.txt"), "errors.txt (the result of the first step) is missing")
    return kb.read("errors.txt").splitlines()


@kb.case
def answer_is_the_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def errors_file_has_only_error_lines():
    extra = [ln for ln in error_lines() if ln not in ERROR_LINES]
    kb.eq(extra[:3], [], "lines in errors.txt that are not ERROR-level lines of app.log")


@kb.case
def errors_file_complete_in_order():
    kb.eq(error_lines(), ERROR_LINES, "errors.txt")


kb.main()
