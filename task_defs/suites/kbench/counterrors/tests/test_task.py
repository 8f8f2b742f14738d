# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

ANSWER = "56"  # lines whose level field is ERROR; several INFO/WARN lines mention ERROR in the message


@kb.case
def answer_is_the_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


kb.main()
