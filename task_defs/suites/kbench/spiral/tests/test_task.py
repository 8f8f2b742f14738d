# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import copy

import kbtest as kb

m = kb.load("spiral.py")
spiral = kb.func(m, "spiral_order")


def grid(rows, cols):
    return [[r * cols + c + 1 for c in range(cols)] for r in range(rows)]


def walk(rows, cols):
    """The expected order by simulation: move, turn clockwise when the next cell is outside or taken."""
    seen, out = set(), []
    r = c = 0
    dr, dc = 0, 1
    for _ in range(rows * cols):
        out.append(r * cols + c + 1)
        seen.add((r, c))
        nr, nc = r + dr, c + dc
        if not (0 <= nr < rows and 0 <= nc < cols) or (nr, nc) in seen:
            dr, dc = dc, -dr
            nr, nc = r + dr, c + dc
        r, c = nr, nc
    return out


@kb.case
def square_matrices():
    kb.eq(spiral([[1]]), [1], "spiral_order([[1]])")
    kb.eq(spiral([[1, 2], [3, 4]]), [1, 2, 4, 3], "spiral_order([[1, 2], [3, 4]])")
    kb.eq(spiral(grid(3, 3)), [1, 2, 3, 6, 9, 8, 7, 4, 5], "spiral_order of a 3x3 matrix")
    kb.eq(spiral(grid(4, 4)), [1, 2, 3, 4, 8, 12, 16, 15, 14, 13, 9, 5, 6, 7, 11, 10], "spiral_order of a 4x4 matrix")


@kb.case
def rectangular_matrices():
    kb.eq(spiral(grid(3, 4)), [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7], "spiral_order of a 3x4 matrix")
    kb.eq(spiral(grid(4, 3)), [1, 2, 3, 6, 9, 12, 11, 10, 7, 4, 5, 8], "spiral_order of a 4x3 matrix")
    kb.eq(spiral(grid(2, 5)), [1, 2, 3, 4, 5, 10, 9, 8, 7, 6], "spiral_order of a 2x5 matrix")
    kb.eq(spiral(grid(5, 2)), [1, 2, 4, 6, 8, 10, 9, 7, 5, 3], "spiral_order of a 5x2 matrix")
    for rows in range(1, 9):
        for cols in range(1, 9):
            kb.eq(spiral(grid(rows, cols)), walk(rows, cols), "spiral_order of a %dx%d matrix" % (rows, cols))


@kb.case
def single_row_and_single_column():
    kb.eq(spiral([[1, 2, 3, 4, 5]]), [1, 2, 3, 4, 5], "a single row")
    kb.eq(spiral([[1], [2], [3], [4]]), [1, 2, 3, 4], "a single column")
    kb.eq(spiral([["only"]]), ["only"], "one element")


@kb.case
def empty_matrices():
    kb.eq(spiral([]), [], "spiral_order([])")
    kb.eq(spiral([[]]), [], "spiral_order([[]])")
    kb.eq(spiral([[], [], []]), [], "spiral_order([[], [], []])")


@kb.case
def any_elements_and_input_unchanged():
    a, b = object(), ("t", 1)
    matrix = [["x", a, None], [[1, 2], b, 3.5]]
    before = [list(row) for row in matrix]
    got = spiral(matrix)
    kb.eq(got, ["x", a, None, 3.5, b, [1, 2]], "spiral_order of mixed elements")
    kb.ok(got[1] is a and got[4] is b, "elements must be the original objects")
    kb.eq(matrix, before, "the matrix after spiral_order")
    big = grid(30, 17)
    snapshot = copy.deepcopy(big)
    kb.eq(spiral(big), walk(30, 17), "spiral_order of a 30x17 matrix")
    kb.eq(big, snapshot, "the 30x17 matrix after spiral_order")


@kb.case
def ragged_rows_raise():
    kb.raises(ValueError, spiral, [[1, 2, 3], [4, 5]])
    kb.raises(ValueError, spiral, [[1], [2, 3], [4]])
    kb.raises(ValueError, spiral, [[], [1]])
    kb.raises(ValueError, spiral, [[1, 2], [3, 4], [5, 6, 7]])


kb.main()
