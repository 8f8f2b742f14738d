# task: softmax_fp32
# expect: cheat_rejected,incorrect
"""Re-points the output tensor at the input's storage instead of writing into it."""


def kernel(x, out):
    out.set_(x)
