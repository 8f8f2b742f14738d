# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Cross-entropy per token: logsumexp of the row minus the target's logit, in fp32."""

import torch


def make_inputs(shape, r):
    t, v = shape["T"], shape["V"]
    return {"logits": r.normal(t, v, dtype=torch.bfloat16, scale=2.0), "target": r.randint(0, v, t)}


def reference(logits, target):
    x = logits.float()
    m = x.amax(dim=-1, keepdim=True)
    lse = (x - m).exp().sum(dim=-1).log() + m.squeeze(-1)
    return lse - x.gather(1, target[:, None]).squeeze(1)
