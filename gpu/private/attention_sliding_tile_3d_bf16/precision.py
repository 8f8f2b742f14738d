# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for attention_sliding_tile_3d_bf16 (gpu/precision.py): the tiles laid out tile-major,
every query tile streaming the key tiles of its window one at a time through an online softmax (the way a sliding
tile kernel's thread block does, all query tiles in step), its probabilities rounded to bf16 before the value
product as a tensor-core kernel takes them; and windows that stay centred at the borders (cut off by the grid
instead of shifted inward)."""

import itertools

import torch

VARIANT = "windows centred and cut off at the grid border instead of shifted inward"


def _tiles(z, tile):
    """(B, NH, T, X, Y, D) -> (B, NH, NT*NX*NY, TT*TX*TY, D): tile-major, raster order inside a tile."""
    b, nh, t, x, y, d = z.shape
    tt, tx, ty = tile
    z = z.float().view(b, nh, t // tt, tt, x // tx, tx, y // ty, ty, d).permute(0, 1, 2, 4, 6, 3, 5, 7, 8)
    return z.reshape(b, nh, (t // tt) * (x // tx) * (y // ty), tt * tx * ty, d)


def _attend(q, k, v, tile, window, shift):
    b, nh, t, x, y, d = q.shape
    tile, window = tile.tolist(), window.tolist()
    n = [t // tile[0], x // tile[1], y // tile[2]]
    qt, kt, vt = (_tiles(z, tile) for z in (q, k, v))
    grid = torch.stack(torch.meshgrid(*(torch.arange(s) for s in n), indexing="ij"), dim=-1).reshape(-1, 3)
    first = grid - torch.tensor(window) // 2  # (NTILES, 3): the window's first tile along each axis
    if shift:
        first = torch.minimum(first.clamp(min=0), torch.tensor(n) - torch.tensor(window))
    nt = grid.shape[0]
    m = torch.full(qt.shape[:-1], float("-inf"))
    den = torch.zeros(qt.shape[:-1])
    acc = torch.zeros(qt.shape)
    for off in itertools.product(*(range(w) for w in window)):
        at = first + torch.tensor(off)  # the key tile this step brings to each query tile
        inside = ((at >= 0) & (at < torch.tensor(n))).all(dim=-1)  # (NTILES,): off the grid -> nothing to add
        flat = (at.clamp(min=0) * torch.tensor([n[1] * n[2], n[2], 1])).sum(dim=-1).clamp(max=nt - 1)
        idx = flat[None, None, :, None, None].expand(b, nh, nt, kt.shape[3], d)
        kb, vb = kt.gather(2, idx), vt.gather(2, idx)
        s = (qt @ kb.transpose(-1, -2)) * d ** -0.5
        s = s.masked_fill(~inside[None, None, :, None, None], float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1))
        safe = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        keep = torch.exp(m - safe)
        e = torch.exp(s - safe[..., None])
        den = den * keep + e.sum(dim=-1)  # the sum from the fp32 probabilities
        acc = acc * keep[..., None] + e.to(torch.bfloat16).float() @ vb
        m = m_new
    o = (acc / den[..., None]).view(b, nh, n[0], n[1], n[2], tile[0], tile[1], tile[2], d)
    return o.permute(0, 1, 2, 5, 3, 6, 4, 7, 8).reshape(q.shape).to(q.dtype)


def alternate(q, k, v, tile, window):
    return _attend(q, k, v, tile, window, shift=True)


def variant(q, k, v, tile, window):
    return _attend(q, k, v, tile, window, shift=False)
