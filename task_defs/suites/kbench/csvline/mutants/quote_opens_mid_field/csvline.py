# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def split_csv_line(line):
    fields = []
    buf = []
    quoted = False      # inside quotes now
    just_closed = False  # the previous character closed a quoted part
    i = 0
    while i < len(line):
        c = line[i]
        if quoted:
            if c == '"':
                if i + 1 < len(line) and line[i + 1] == '"':
                    buf.append('"')
                    i += 1
                else:
                    quoted = False
                    just_closed = True
            else:
                buf.append(c)
        elif c == ",":
            fields.append("".join(buf))
            buf = []
            just_closed = False
        elif just_closed:
            raise ValueError("text after a closing quote at %d" % i)
        elif c == '"':
            quoted = True
        else:
            buf.append(c)
        i += 1
    if quoted:
        raise ValueError("quoted field is not closed")
    fields.append("".join(buf))
    return fields
