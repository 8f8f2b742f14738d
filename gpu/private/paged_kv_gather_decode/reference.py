# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Gather the keys and values of B sequences from their pages into (B, MB * BS, H, D), zeros past each length."""

import torch


def make_inputs(shape, r):
    b, mb, bs, h, d = (shape[n] for n in ("B", "MB", "BS", "H", "D"))
    nb = b * mb + 4  # a few blocks belong to nobody
    bf = torch.bfloat16
    return {
        "k_cache": r.normal(nb, bs, h, d, dtype=bf),
        "v_cache": r.normal(nb, bs, h, d, dtype=bf),
        "block_table": r.randperm(nb)[: b * mb].reshape(b, mb).to(torch.int32),
        "seq_lens": r.randint(1, mb * bs + 1, b, dtype=torch.int32),
    }


def reference(k_cache, v_cache, block_table, seq_lens):
    bs = k_cache.shape[1]
    s = block_table.shape[1] * bs
    pos = torch.arange(s, device=k_cache.device)
    blk = block_table.long()[:, pos // bs]  # (B, S) physical block of every position
    slot = (pos % bs)[None, :].expand_as(blk)
    keep = (pos[None, :] < seq_lens.long()[:, None])[:, :, None, None]
    zero = torch.zeros((), dtype=k_cache.dtype, device=k_cache.device)
    return torch.where(keep, k_cache[blk, slot], zero), torch.where(keep, v_cache[blk, slot], zero)
