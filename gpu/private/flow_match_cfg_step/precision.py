# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for flow_match_cfg_step (gpu/precision.py): the same step with the guidance folded
into two per-sample weights, as a fused kernel would, and a step that takes the conditional velocity as is."""

import torch

VARIANT = "ignores the guidance scale (steps along v_cond alone)"


def alternate(x, v_cond, v_uncond, t, t_next, guidance):
    # per-sample weights first: dt * ((1 - g) * v_uncond + g * v_cond), then one fused multiply-add per element,
    # walked in column chunks
    dt = (t_next - t).float()
    wc = (dt * guidance)[:, None]
    wu = (dt * (1.0 - guidance))[:, None]
    out = torch.empty_like(x)
    n = x.shape[1]
    for c in range(0, n, 128):
        s = slice(c, c + 128)
        acc = v_uncond[:, s].float() * wu
        acc = torch.addcmul(acc, v_cond[:, s].float(), wc)
        out[:, s] = (x[:, s].float() + acc).to(torch.bfloat16)
    return out


def variant(x, v_cond, v_uncond, t, t_next, guidance):
    return (x.float() + (t_next - t)[:, None] * v_cond.float()).to(torch.bfloat16)
