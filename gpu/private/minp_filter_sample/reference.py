# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Min-p filtering then inverse-CDF sampling with a given uniform per row. A token survives when its probability is
at least min_p times the row's largest probability; the survivors are renormalised and the token is the one whose
interval of the running sum, in vocabulary order, holds u. Computed in fp64."""

import math

import torch


def _kept(probs, min_p):
    p = probs.double()
    cut = min_p.double()[:, None] * p.amax(dim=1, keepdim=True)
    return torch.where(p >= cut, p, torch.zeros_like(p))


def _llm_logits(r, rows, v):
    """Logits shaped like a language model's: a Gaussian tail over the vocabulary plus a head of 8 boosted tokens
    per row, so a row has likely tokens whatever V is."""
    logits = r.normal(*rows, v, scale=1.5)
    head = r.randint(0, v, *rows, 8)
    boost = math.log(v) + r.uniform(*rows, 8, low=-3.0, high=2.0)
    return logits.scatter_add(-1, head, boost)


def make_inputs(shape, r):
    b, v = shape["B"], shape["V"]
    # rows differ in temperature: some flatter, some more peaked
    temp = r.uniform(b, low=0.8, high=2.0)
    probs = torch.softmax(_llm_logits(r, (b,), v) / temp[:, None], dim=-1)
    min_p = r.uniform(b, low=0.02, high=0.3)
    # no probability within 0.2% of its row's cut: those move 1% up, clear of it
    cut = min_p[:, None] * probs.amax(dim=1, keepdim=True)
    near = (probs - cut).abs() < 2e-3 * cut
    probs = torch.where(near, probs * 1.01, probs)
    # u sits in the middle of the interval of a kept token holding at least 0.1% of the kept mass
    kept = _kept(probs, min_p)
    w = kept / kept.sum(dim=1, keepdim=True)
    eligible = w >= 1e-3
    eligible |= (~eligible.any(dim=1, keepdim=True)) & (w == w.amax(dim=1, keepdim=True))
    chosen = (r.uniform(b, v) * eligible).argmax(dim=1, keepdim=True)
    hi = w.cumsum(dim=1).gather(1, chosen)
    lo = hi - w.gather(1, chosen)
    return {"probs": probs, "min_p": min_p, "u": ((lo + hi) / 2).squeeze(1).float()}


def reference(probs, min_p, u):
    kept = _kept(probs, min_p)
    c = kept.cumsum(dim=1)
    goal = u.double()[:, None] * c[:, -1:]
    return torch.searchsorted(c, goal, right=True).clamp(max=probs.shape[1] - 1).squeeze(1)
