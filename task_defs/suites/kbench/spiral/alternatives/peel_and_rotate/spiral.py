# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def spiral_order(matrix):
    widths = {len(row) for row in matrix}
    if len(widths) > 1:
        raise ValueError("rows of different lengths: %s" % sorted(widths))
    rest = [list(row) for row in matrix]
    out = []
    while rest:
        out.extend(rest.pop(0))
        rest = [list(column) for column in zip(*rest)][::-1]
    return out
