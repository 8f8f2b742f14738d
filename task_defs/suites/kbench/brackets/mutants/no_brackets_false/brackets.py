# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def balanced(s):
    match = {")": "(", "]": "[", "}": "{"}
    stack = []
    seen = False
    for ch in s:
        if ch in "([{":
            seen = True
            stack.append(ch)
        elif ch in match:
            seen = True
            if not stack or stack.pop() != match[ch]:
                return False
    return seen and not stack
