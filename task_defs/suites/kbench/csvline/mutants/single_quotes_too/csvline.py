# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def split_csv_line(line):
    fields = []
    pos = 0
    end = len(line)
    while True:
        if pos < end and line[pos] in "\"'":
            q = line[pos]
            pos += 1
            chars = []
            while True:
                if pos >= end:
                    raise ValueError("quoted field is not closed")
                if line[pos] == q:
                    if pos + 1 < end and line[pos + 1] == q:
                        chars.append(q)
                        pos += 2
                        continue
                    pos += 1
                    break
                chars.append(line[pos])
                pos += 1
            fields.append("".join(chars))
            if pos < end and line[pos] != ",":
                raise ValueError("text after a closing quote at %d" % pos)
        else:
            start = pos
            while pos < end and line[pos] != ",":
                if line[pos] == '"':
                    raise ValueError("quote inside an unquoted field at %d" % pos)
                pos += 1
            fields.append(line[start:pos])
        if pos >= end:
            return fields
        pos += 1  # the comma
