# task: softmax_fp32
# expect: compile_error
"""Does not parse."""

def kernel(x, out)
    out.copy_(x)
