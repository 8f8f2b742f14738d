# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
def spiral_order(matrix):
    for row in matrix:
        if len(row) != len(matrix[0]):
            raise ValueError("ragged matrix")
    out = []
    if not matrix or not matrix[0]:
        return out
    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        for c in range(left, right + 1):
            out.append(matrix[top][c])
        for r in range(top + 1, bottom + 1):
            out.append(matrix[r][right])
        if True:
            for c in range(right - 1, left - 1, -1):
                out.append(matrix[bottom][c])
        if left < right:
            for r in range(bottom - 1, top, -1):
                out.append(matrix[r][left])
        top += 1
        bottom -= 1
        left += 1
        right -= 1
    return out
