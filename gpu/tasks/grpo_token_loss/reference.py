# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""PPO/GRPO clipped surrogate per token (eps 0.2): -min(r * A, clip(r, 0.8, 1.2) * A) on masked-in tokens, zero
elsewhere, and its mean over the masked-in tokens; fp32."""

import torch

EPS = 0.2


def make_inputs(shape, r):
    b, l = shape["B"], shape["L"]
    old_logp = -(r.normal(b, l).abs() * 1.5)  # log-probabilities are <= 0
    logp = old_logp + 0.2 * r.normal(b, l)  # the policy moved a little: many ratios fall outside [0.8, 1.2]
    # each response starts after a prompt and ends early: a contiguous masked-in span of at least one token
    start = r.randint(0, max(1, l // 4), b)
    length = 1 + (r.uniform(b) * (l - start).float()).long()  # 1 .. L - start tokens
    pos = torch.arange(l, device=old_logp.device)
    mask = (pos[None, :] >= start[:, None]) & (pos[None, :] < (start + length)[:, None])
    return {"logp": logp, "old_logp": old_logp, "advantages": r.uniform(b, low=-0.5, high=1.5), "mask": mask}


def reference(logp, old_logp, advantages, mask):
    ratio = torch.exp(logp - old_logp)
    a = advantages[:, None]
    surrogate = torch.minimum(ratio * a, ratio.clamp(1.0 - EPS, 1.0 + EPS) * a)
    loss = torch.where(mask, -surrogate, torch.zeros_like(surrogate))
    loss_mean = loss.sum() / mask.sum()
    return loss, loss_mean
