# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def balanced(s):
    match = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif ch in match:
            if not stack or stack.pop() != match[ch]:
                return False
    return True
