# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Scatter S new tokens per sequence into their pages of the key and value caches."""

import torch


def make_inputs(shape, r):
    b, s, h, d, bs, mb = (shape[n] for n in ("B", "S", "H", "D", "BS", "MB"))
    nb = b * mb + 4  # a few blocks belong to nobody
    bf = torch.bfloat16
    table = r.randperm(nb)[: b * mb].reshape(b, mb).to(torch.int32)
    return {
        "k_new": r.normal(b, s, h, d, dtype=bf), "v_new": r.normal(b, s, h, d, dtype=bf),
        "block_table": table,
        "start": r.randint(0, mb * bs - s + 1, b, dtype=torch.int32),
        "k_cache": r.normal(nb, bs, h, d, dtype=bf), "v_cache": r.normal(nb, bs, h, d, dtype=bf),
    }


def reference(k_new, v_new, block_table, start, k_cache, v_cache):
    b, s = k_new.shape[:2]
    bs = k_cache.shape[1]
    pos = start.long()[:, None] + torch.arange(s, device=k_new.device)[None, :]
    blk = block_table.long().gather(1, pos // bs)
    slot = pos % bs
    k_out, v_out = k_cache.clone(), v_cache.clone()
    k_out[blk, slot] = k_new
    v_out[blk, slot] = v_new
    return k_out, v_out
