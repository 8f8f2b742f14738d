# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def flatten(items):
    if not isinstance(items, list):
        raise TypeError("flatten expects a list, got %s" % type(items).__name__)
    out = []
    stack = [iter(items)]  # an explicit stack of iterators, so depth is not limited by recursion
    while stack:
        for x in stack[-1]:
            if isinstance(x, list):
                stack.append(iter(x))
                break
            out.append(x)
        else:
            stack.pop()
    return out
