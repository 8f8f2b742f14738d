# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""MoE combine: out[t] = sum_k topk_weight[t, k] * expert_out[src_row[t, k]], fp32 sums, bf16 out."""

import torch


def make_inputs(shape, r):
    t, k, h = shape["T"], shape["K"], shape["H"]
    return {
        "expert_out": r.normal(t * k, h, dtype=torch.bfloat16),
        "src_row": r.randperm(t * k).reshape(t, k).to(torch.int32),  # a token's pairs land anywhere
        "topk_weight": torch.softmax(r.normal(t, k), dim=-1),  # softmax over the chosen experts' logits
    }


def reference(expert_out, src_row, topk_weight):
    rows = expert_out[src_row.long()].float()  # (T, K, H)
    return (rows * topk_weight[:, :, None]).sum(dim=1).to(torch.bfloat16)
