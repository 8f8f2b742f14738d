# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Split one CSV line: commas separate fields, "..." quotes a field, "" inside quotes is one quote."""


def split_csv_line(line):
    if not isinstance(line, str):
        raise ValueError("line must be a str")
    fields = []
    i, n = 0, len(line)
    while True:
        if i < n and line[i] == '"':
            i += 1
            buf = []
            while True:
                if i >= n:
                    raise ValueError("unterminated quoted field")
                ch = line[i]
                if ch == '"':
                    if i + 1 < n and line[i + 1] == '"':
                        buf.append('"')
                        i += 2
                    else:
                        i += 1
                        break
                else:
                    buf.append(ch)
                    i += 1
            fields.append("".join(buf))
            if i == n:
                return fields
            if line[i] != ",":
                raise ValueError("unexpected %r after a closing quote at position %d" % (line[i], i))
            i += 1
        else:
            j = i
            while j < n and line[j] != ",":
                if line[j] == '"':
                    raise ValueError("double quote inside an unquoted field at position %d" % j)
                j += 1
            fields.append(line[i:j])
            if j == n:
                return fields
            i = j + 1
