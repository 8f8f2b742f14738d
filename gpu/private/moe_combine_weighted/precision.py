# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for moe_combine_weighted (gpu/precision.py): a scatter formulation (walk the rows
in expert order and add each into its token, as an atomic-add kernel would; the sum order differs), and a
kernel that sums the expert outputs without the router weights."""

import torch

VARIANT = "ignores the router weights (plain sum of the K expert outputs)"


def _token_of_row(src_row):
    t, k = src_row.shape
    token = torch.empty(t * k, dtype=torch.long)
    token[src_row.reshape(-1).long()] = torch.arange(t).repeat_interleave(k)
    return token


def alternate(expert_out, src_row, topk_weight):
    t, k = src_row.shape
    token = _token_of_row(src_row)
    weight = torch.empty(t * k, dtype=torch.float32)
    weight[src_row.reshape(-1).long()] = topk_weight.reshape(-1)
    acc = torch.zeros(t, expert_out.shape[1], dtype=torch.float32)
    for i in range(t * k):  # rows in expert order, each added into its token's fp32 accumulator
        acc[token[i]] += weight[i] * expert_out[i].float()
    return acc.to(torch.bfloat16)


def variant(expert_out, src_row, topk_weight):
    return expert_out[src_row.long()].float().sum(dim=1).to(torch.bfloat16)
