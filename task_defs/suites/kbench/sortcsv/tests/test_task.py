# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

# scores.csv exactly as the agent got it
ORIGINAL = """player,team,score,date
Zoe Park,red,87,2026-02-01
Bea Novak,blue,100,2026-02-01
Igor,green,9,2026-02-02
Adam Reyes,blue,87.0,2026-02-02
Li Wei,red,92.25,2026-02-03
Carl Jensen,green,100,2026-02-03
Noor,blue,45,2026-02-04
Mia Rossi,green,87,2026-02-04
Tariq,red,0,2026-02-05
Olga,blue,87.5,2026-02-05
Ben Ito,green,10,2026-02-06
Sara Kim,red,9.5,2026-02-06
Ava,blue,0,2026-02-07
Dmitri,red,100.0,2026-02-07
"""
LINES = ORIGINAL.splitlines()
HEADER, ROWS = LINES[0], LINES[1:]
# highest score first, compared as numbers (87 == 87.0); sorted() is stable, so ties keep the file order
WANT_ROWS = sorted(ROWS, key=lambda line: -float(line.split(",")[2]))
WANT = "\n".join([HEADER] + WANT_ROWS) + "\n"


def lines():
    return kb.read("sorted.csv").splitlines()


@kb.case
def header_stays_first():
    got = lines()
    kb.eq(got[0] if got else None, HEADER, "first line of sorted.csv")


@kb.case
def same_rows_unchanged():
    kb.eq(sorted(lines()[1:]), sorted(ROWS), "data rows of sorted.csv (as a set, order ignored)")


@kb.case
def highest_score_first_numerically():
    scores = []
    for line in lines()[1:]:
        try:
            scores.append(float(line.split(",")[2]))
        except (IndexError, ValueError):
            raise AssertionError("not a data row: %r" % line)
    kb.eq(scores, sorted(scores, reverse=True), "scores from top to bottom")


@kb.case
def ties_keep_file_order():
    got = [l for l in lines()[1:] if l in ROWS]
    for score in (100.0, 87.0, 0.0):
        want = [l for l in WANT_ROWS if float(l.split(",")[2]) == score]
        kb.eq([l for l in got if float(l.split(",")[2]) == score], want, "rows with score %g, in order" % score)


@kb.case
def exact_content():
    with open(kb.path("sorted.csv"), "rb") as fh:  # bytes: kb.read would turn CRLF into LF
        got = fh.read()
    kb.eq(got, WANT.encode(), "sorted.csv (bytes)")


kb.main()
