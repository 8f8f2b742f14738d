# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Classifier-free guidance of two velocity predictions, then one Euler step of a flow-matching sampler from t to
t_next, per sample; fp32 arithmetic, bf16 latents in and out."""

import torch


def make_inputs(shape, r):
    b, n = shape["B"], shape["N"]
    bf = torch.bfloat16
    v_uncond = r.normal(b, n)
    # the prompt moves the prediction a little: the conditional velocity is the unconditional one plus a nudge
    v_cond = v_uncond + 0.5 * r.normal(b, n)
    t = r.uniform(b, low=0.1, high=1.0)
    t_next = t - r.uniform(b, low=0.01, high=0.08)
    return {
        "x": r.normal(b, n, dtype=bf),
        "v_cond": v_cond.to(bf),
        "v_uncond": v_uncond.to(bf),
        "t": t,
        "t_next": t_next,
        "guidance": r.uniform(b, low=2.0, high=8.0),
    }


def reference(x, v_cond, v_uncond, t, t_next, guidance):
    vc, vu = v_cond.float(), v_uncond.float()
    v = vu + guidance[:, None] * (vc - vu)
    return (x.float() + (t_next - t)[:, None] * v).to(torch.bfloat16)
