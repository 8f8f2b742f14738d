# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def spiral_order(matrix):
    if any(len(row) != len(matrix[0]) for row in matrix):
        raise ValueError("all rows must have the same length")
    grid = [list(col) for col in zip(*matrix)]
    out = []
    if not grid:
        return out
    top, bottom, left, right = 0, len(grid) - 1, 0, len(grid[0]) - 1
    while top <= bottom and left <= right:
        out.extend(grid[top][c] for c in range(left, right + 1))
        out.extend(grid[r][right] for r in range(top + 1, bottom + 1))
        if top < bottom:
            out.extend(grid[bottom][c] for c in range(right - 1, left - 1, -1))
        if left < right:
            out.extend(grid[r][left] for r in range(bottom - 1, top, -1))
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return out
