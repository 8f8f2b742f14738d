# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for paged_kv_append (gpu/precision.py): an independent append that walks each
sequence page by page and copies the run of new tokens landing in that page, and one that ignores the block
table and writes sequence b's logical block j to physical block b * MB + j."""

import torch

VARIANT = "ignores the block table (logical block j of sequence b written to physical block b * MB + j)"


def _append(k_new, v_new, start, k_cache, v_cache, physical):
    b, s = k_new.shape[:2]
    bs = k_cache.shape[1]
    k_out, v_out = k_cache.clone(), v_cache.clone()
    for seq in range(b):
        pos, done = int(start[seq]), 0
        while done < s:
            slot = pos % bs
            run = min(bs - slot, s - done)  # tokens that fit in this page
            blk = physical(seq, pos // bs)
            k_out[blk, slot:slot + run] = k_new[seq, done:done + run]
            v_out[blk, slot:slot + run] = v_new[seq, done:done + run]
            pos += run
            done += run
    return k_out, v_out


def alternate(k_new, v_new, block_table, start, k_cache, v_cache):
    return _append(k_new, v_new, start, k_cache, v_cache, lambda seq, j: int(block_table[seq, j]))


def variant(k_new, v_new, block_table, start, k_cache, v_cache):
    mb = block_table.shape[1]
    return _append(k_new, v_new, start, k_cache, v_cache, lambda seq, j: seq * mb + j)
