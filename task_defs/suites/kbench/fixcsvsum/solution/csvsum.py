#!/usr/bin/env python3
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Print the total of the amount column of a CSV file: python3 csvsum.py FILE"""
import csv
import sys
from decimal import Decimal, InvalidOperation


class InputError(Exception):
    pass


def total_amount(path):
    with open(path, encoding="utf-8", newline="") as fh:
        rows = [row for row in csv.reader(fh) if any(cell.strip() for cell in row)]
    if not rows or "amount" not in rows[0]:
        raise InputError("%s: no amount column in the header" % path)
    column = rows[0].index("amount")
    total = Decimal(0)
    for number, row in enumerate(rows[1:], 2):
        try:
            total += Decimal(row[column].strip())
        except (IndexError, InvalidOperation):
            raise InputError("%s: data row %d has no valid amount" % (path, number)) from None
    return total


def main():
    if len(sys.argv) != 2:
        print("usage: python3 csvsum.py FILE", file=sys.stderr)
        return 2
    try:
        total = total_amount(sys.argv[1])
    except (InputError, OSError) as exc:
        print("csvsum: %s" % exc, file=sys.stderr)
        return 1
    print("%s" % total.quantize(Decimal("0.01")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
