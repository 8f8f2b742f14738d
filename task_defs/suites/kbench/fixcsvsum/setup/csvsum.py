#!/usr/bin/env python3
# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Print the total of the amount column of a CSV file: python3 csvsum.py FILE"""
import sys


def total_amount(path):
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    header = lines[0].split(",")
    column = header.index("amount")
    total = 0.0
    for line in lines[1:]:
        fields = line.split(",")
        total += float(fields[column])
    return total


def main():
    if len(sys.argv) != 2:
        print("usage: python3 csvsum.py FILE", file=sys.stderr)
        return 2
    print("%.2f" % total_amount(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
