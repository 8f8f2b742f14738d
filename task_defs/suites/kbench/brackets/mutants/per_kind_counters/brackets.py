# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def balanced(s):
    depth = {"(": 0, "[": 0, "{": 0}
    closer_of = {")": "(", "]": "[", "}": "{"}
    for ch in s:
        if ch in depth:
            depth[ch] += 1
        elif ch in closer_of:
            depth[closer_of[ch]] -= 1
            if depth[closer_of[ch]] < 0:
                return False
    return all(v == 0 for v in depth.values())
