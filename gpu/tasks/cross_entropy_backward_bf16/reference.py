# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Gradient of the mean cross-entropy with ignore index -100: (softmax - one_hot) * grad_loss / n_valid on the
counted rows, zero on the ignored ones; fp32 math, bf16 out."""

import torch

IGNORE = -100


def make_inputs(shape, r):
    t, v = shape["T"], shape["V"]
    target = r.randint(0, v, t)
    ignored = r.randperm(t)[: max(1, t // 4)]  # a quarter of the rows (at least one) are ignored, never all
    target[ignored] = IGNORE
    return {"logits": r.normal(t, v, dtype=torch.bfloat16, scale=2.0), "target": target,
            "grad_loss": r.uniform(1, low=0.125, high=0.5).reshape(())}


def reference(logits, target, grad_loss):
    x = logits.float()
    valid = target != IGNORE
    n_valid = valid.sum()
    p = torch.exp(x - x.amax(dim=-1, keepdim=True))
    p = p / p.sum(dim=-1, keepdim=True)
    rows = torch.nonzero(valid).squeeze(1)
    p[rows, target[rows]] -= 1.0
    p = p * (grad_loss / n_valid)
    p[~valid] = 0.0
    return p.to(torch.bfloat16)


def eager(logits, target, grad_loss):
    """The library path a user would call (autograd through F.cross_entropy): the baseline for the audit flag."""
    with torch.enable_grad():
        x = logits.detach().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(x, target, ignore_index=IGNORE)
        loss.backward(grad_loss.to(loss.dtype))
    return x.grad
