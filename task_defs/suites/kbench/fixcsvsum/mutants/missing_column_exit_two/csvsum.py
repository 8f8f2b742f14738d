#!/usr/bin/env python3
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Print the total of the amount column of a CSV file: python3 csvsum.py FILE"""
import csv
import sys
from decimal import Decimal


def total_amount(path):
    with open(path, encoding="utf-8", newline="") as fh:
        rows = [row for row in csv.reader(fh) if any(cell.strip() for cell in row)]
    if not rows:
        raise LookupError("%s: no header row" % path)
    header = rows[0]
    if "amount" not in header:
        raise LookupError("%s: no amount column" % path)
    column = header.index("amount")
    return sum((Decimal(row[column].strip()) for row in rows[1:]), Decimal(0))


def main():
    if len(sys.argv) != 2:
        print("usage: python3 csvsum.py FILE", file=sys.stderr)
        return 2
    try:
        total = total_amount(sys.argv[1])
    except LookupError as exc:
        print("csvsum: %s" % exc, file=sys.stderr)
        return 2
    print(total.quantize(Decimal("0.01")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
