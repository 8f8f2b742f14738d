# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import datetime

import kbtest as kb

START = datetime.date(2023, 12, 11)  # 11/12/2023, day first
END = datetime.date(2024, 3, 4)      # 04/03/2024; the span holds 29 February 2024
ANSWER = str((END - START).days)     # 84


def answer():
    return kb.read("answer.txt").strip()


@kb.case
def days_end_minus_start():
    kb.eq(answer(), ANSWER, "answer.txt")


@kb.case
def only_an_integer():
    text = answer()
    kb.ok(text.lstrip("-").isdigit(), "answer.txt must hold only a whole number (no units), got %r" % text[:80])


@kb.case
def not_read_month_first():
    # reading the dates as MM/DD gives 12 Nov 2023 to 3 Apr 2024
    kb.ok(answer() != str((datetime.date(2024, 4, 3) - datetime.date(2023, 11, 12)).days),
          "answer.txt holds the count for the dates read month-first")


kb.main()
