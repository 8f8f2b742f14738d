# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

ANSWER = "56"  # lines whose level field is ERROR; several INFO/WARN/DEBUG lines mention ERROR in the message


@kb.case
def answer_is_the_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def log_left_alone():
    # the count must come from the log as given, not from an edited copy
    kb.eq(sum(1 for ln in kb.read("app.log").splitlines() if ln.split()[1:2] == ["ERROR"]), int(ANSWER),
          "ERROR-level lines still in app.log")


kb.main()
