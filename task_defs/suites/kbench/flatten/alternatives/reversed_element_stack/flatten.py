# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def flatten(items):
    if not isinstance(items, list):
        raise TypeError("flatten() takes a list, not %s" % type(items).__name__)
    result = []
    todo = items[::-1]
    while todo:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item[::-1])
        else:
            result.append(item)
    return result
