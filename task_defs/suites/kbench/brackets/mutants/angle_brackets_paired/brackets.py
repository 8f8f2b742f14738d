# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}


def balanced(s):
    stack = []
    for ch in s:
        if ch in "([{<":
            stack.append(ch)
        elif ch in PAIRS:
            if not stack or stack.pop() != PAIRS[ch]:
                return False
    return not stack
