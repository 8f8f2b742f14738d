# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(str(j - i) + s[i])
        i = j
    return "".join(out)


def decode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j].isdigit():
            j += 1
        if j == i or j == len(s):
            raise ValueError("a count must be followed by a character")
        count = s[i:j]
        if count[0] == "0":
            raise ValueError("count with a leading zero or a zero count")
        out.append(s[j] * int(count))
        i = j + 1
    return "".join(out)
