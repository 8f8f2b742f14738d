# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def parse_ini(text):
    data = {}
    section = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if line == "" or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            if section not in data:
                data[section] = {}
            continue
        if "=" in line:
            key, _, value = line.partition("=")
            key = key.strip()
            if key == "":
                raise ValueError("line %d: empty key" % lineno)
            data.setdefault("" if section is None else section, {})[key] = value.strip()
            continue
        raise ValueError("line %d: cannot parse %r" % (lineno, line))
    return data
