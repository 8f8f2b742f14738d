#!/usr/bin/env python3
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Print the total of the amount column of a CSV file: python3 csvsum.py FILE"""
import csv
import sys


def cents(text):
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("-").partition(".")
    if not (whole + frac).isdigit() or len(frac) > 2:
        raise ValueError("not an amount: %r" % text)
    return sign * (int(whole or "0") * 100 + int(frac.ljust(2, "0")))


def main():
    if len(sys.argv) != 2:
        print("usage: python3 csvsum.py FILE", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8", newline="") as fh:
        lines = [row for row in csv.reader(fh) if "".join(row).strip()]
    if not lines or "amount" not in lines[0]:
        sys.stderr.write("csvsum: %s has no amount column\n" % sys.argv[1])
        return 1
    header = lines[0]
    total = 0
    for row in lines[1:]:
        record = dict(zip(header, row))
        total += cents(record["amount"])
    units, rest = divmod(abs(total), 100)
    print("%s%d.%02d" % ("-" if total < 0 else "", units, rest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
