# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import collections
import hashlib
import re

import kbtest as kb

# 187 requests. Runner-up 198.51.100.230 has 181; counting every address anywhere in the line puts
# 192.0.2.77 (URLs, referers) and 10.0.0.5 (a user agent) on top; uniq -c without sort gives 66.249.66.1.
ANSWER = "198.51.100.23"
LOG_SHA256 = "c147970b8f0d0493c78853fab08473d691b091af8c9bb7e36e541ca6879c29d2"
IPS_SHA256 = "dcec54313505046b492a89f0811f687eec70006d2b209483a1efe49b1fb89d30"  # first fields, one per line
LINES, DISTINCT = 3858, 278


def log_lines():
    """access.log, trusted only once its hash shows it is the file the agent was given."""
    with open(kb.path("access.log"), "rb") as fh:
        data = fh.read()
    kb.eq(hashlib.sha256(data).hexdigest(), LOG_SHA256, "sha256 of access.log (it must not be changed)")
    return data.decode("utf-8").splitlines()


def expected_ips():
    ips = [ln.split()[0] for ln in log_lines()]
    assert len(ips) == LINES and hashlib.sha256(("\n".join(ips) + "\n").encode()).hexdigest() == IPS_SHA256
    return ips


@kb.case
def answer_is_the_top_client():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_an_address():
    text = kb.read("answer.txt").strip()
    kb.ok(re.fullmatch(r"[0-9A-Fa-f.:]+", text) is not None,
          "answer.txt must hold only the address (no count, no other text), got %r" % text[:80])


@kb.case
def log_left_intact():
    log_lines()


@kb.case
def ips_file_is_first_fields_in_order():
    want = expected_ips()
    kb.ok(kb.exists("ips.txt"), "ips.txt (the result of the first step) is missing")
    # compared as written: "one address per line ... and nothing else", so no space before or after the address
    got = kb.read("ips.txt").splitlines()
    kb.eq(len(got), len(want), "number of lines in ips.txt")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            raise AssertionError("ips.txt line %d: expected %r, got %r" % (i + 1, w, g))


@kb.case
def counts_file_right_and_sorted():
    want = collections.Counter(expected_ips())
    kb.ok(kb.exists("counts.txt"), "counts.txt (the result of the second step) is missing")
    rows = []
    for ln in kb.read("counts.txt").splitlines():
        if not ln.strip():
            continue
        parts = ln.split()
        kb.ok(len(parts) == 2 and parts[0].isdigit(), "counts.txt lines must be 'COUNT ADDRESS', got %r" % ln)
        rows.append((int(parts[0]), parts[1]))
    kb.eq(len(rows), DISTINCT, "number of lines in counts.txt (one per distinct address)")
    got = {addr: n for n, addr in rows}
    wrong = sorted(a for a in set(want) | set(got) if got.get(a) != want.get(a))
    kb.eq(wrong[:5], [], "addresses whose count in counts.txt is wrong or missing")
    counts = [n for n, _a in rows]
    kb.eq(counts, sorted(counts, reverse=True), "the counts in counts.txt, top to bottom (highest first)")


kb.main()
