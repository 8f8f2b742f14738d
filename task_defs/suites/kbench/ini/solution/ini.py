# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def parse_ini(text):
    result = {}
    current = None  # name of the current section; None before the first header
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            result.setdefault(current, {})
            continue
        if "=" not in line:
            raise ValueError("line %d: expected [section] or key = value, got %r" % (number, raw))
        key, value = line.split("=", 1)
        key = key.strip()
        if not key:
            raise ValueError("line %d: empty key" % number)
        section = "" if current is None else current
        result.setdefault(section, {})[key] = value.strip()
    return result
