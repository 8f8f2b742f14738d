# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

_FIELD = re.compile(r'"((?:[^"]|"")*)"(?=,|\Z)|([^",]*)(?=,|\Z)')


def split_csv_line(line):
    out = []
    at = 0
    while True:
        m = _FIELD.match(line, at)
        if m is None:
            raise ValueError("malformed CSV field at position %d" % at)
        quoted, plain = m.groups()
        out.append(plain if quoted is None else quoted.replace('""', '"'))
        at = m.end()
        if at == len(line):
            return out
        at += 1  # step over the comma the lookahead saw
