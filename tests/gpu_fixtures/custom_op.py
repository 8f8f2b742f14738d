# task: softmax_fp32
# expect: cheat_rejected
"""Hides the forbidden library softmax inside a custom operator: the grader's operator watch sees only the custom
operator; what runs inside it would go unseen."""
import torch


@torch.library.custom_op("kbfixture::hidden_softmax", mutates_args=("out",))
def hidden_softmax(x: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(torch.softmax(x, dim=-1))


def kernel(x, out):
    hidden_softmax(x, out)
