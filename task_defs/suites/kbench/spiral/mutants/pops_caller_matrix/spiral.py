# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def spiral_order(matrix):
    if any(len(row) != len(matrix[0]) for row in matrix):
        raise ValueError("all rows must have the same length")
    out = []
    while matrix:
        out.extend(matrix.pop(0))
        matrix = [list(col) for col in zip(*matrix)][::-1]
    return out
