# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for paged_kv_gather_decode (gpu/precision.py): a block-by-block copy that walks
each sequence's table only as far as its length, and a kernel that copies every block of the table whatever the
length."""

import torch

VARIANT = "ignores seq_lens (copies the whole table's capacity, no zeros past the length)"


def _gather(cache, block_table, seq_lens):
    b, mb = block_table.shape
    _, bs, h, d = cache.shape
    out = torch.zeros(b, mb * bs, h, d, dtype=cache.dtype)
    for i in range(b):
        n = int(seq_lens[i])
        for j in range((n + bs - 1) // bs):  # only the blocks that hold tokens; the last one partly
            take = min(bs, n - j * bs)
            out[i, j * bs:j * bs + take] = cache[int(block_table[i, j]), :take]
    return out


def alternate(k_cache, v_cache, block_table, seq_lens):
    return _gather(k_cache, block_table, seq_lens), _gather(v_cache, block_table, seq_lens)


def variant(k_cache, v_cache, block_table, seq_lens):
    full = torch.full_like(seq_lens, block_table.shape[1] * k_cache.shape[1])
    return _gather(k_cache, block_table, full), _gather(v_cache, block_table, full)
