# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb


def expected():
    rc, out, err = kb.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])
    names = [line.strip() for line in out.splitlines() if line.strip()]
    if rc != 0 or not names:
        # the machine, not the agent, is at fault: report a crash rather than a wrong answer
        raise RuntimeError("nvidia-smi failed inside the test sandbox: rc=%s %s" % (rc, (err or out).strip()[-300:]))
    return names[0]


def answer():
    return kb.read("answer.txt").strip()


@kb.case
def name_matches_first_gpu():
    # the name is there as a line of its own; a header or other lines are the two cases below
    want = expected()
    lines = [line.strip() for line in answer().splitlines()]
    kb.ok(want in lines, "answer.txt must hold the first GPU's name %r as a line, got %r" % (want, answer()[:120]))


@kb.case
def only_one_line():
    kb.eq(len(answer().splitlines()), 1, "number of non-blank lines in answer.txt (only the first GPU's name)")


@kb.case
def no_header_or_index():
    text = answer()
    kb.ok(not text.lower().startswith(("name", "gpu 0", "0,")), "answer.txt must hold only the name, got %r" % text[:80])


kb.main()
