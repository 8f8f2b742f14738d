# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Sliding tile attention (video DiT style): tokens sit on a (T, X, Y) grid cut into tiles; each query tile attends
to a box of window = (WT, WX, WY) tiles around it, the box shifted inward at the grid's borders so that every tile
sees the same number of tiles. fp32 math, one query tile at a time (the keys of a box are one strided slice)."""

import torch


def make_inputs(shape, r):
    b, nh, d = shape["B"], shape["NH"], shape["D"]
    t, x, y = shape["NT"] * shape["TT"], shape["NX"] * shape["TX"], shape["NY"] * shape["TY"]
    bf = torch.bfloat16
    return {"q": r.normal(b, nh, t, x, y, d, dtype=bf), "k": r.normal(b, nh, t, x, y, d, dtype=bf),
            "v": r.normal(b, nh, t, x, y, d, dtype=bf),
            "tile": torch.tensor([shape["TT"], shape["TX"], shape["TY"]], dtype=torch.int64, device=r.device),
            "window": torch.tensor([shape["WT"], shape["WX"], shape["WY"]], dtype=torch.int64, device=r.device)}


def _box(i, w, n):
    """First tile of the w-tile window around tile i of n: centred, then clamped into 0..n-w."""
    return min(max(i - w // 2, 0), n - w)


def reference(q, k, v, tile, window):
    b, nh, t, x, y, d = q.shape
    tt, tx, ty = tile.tolist()
    wt, wx, wy = window.tolist()
    nt, nx, ny = t // tt, x // tx, y // ty
    out = torch.empty_like(q)
    for a in range(nt):
        for c in range(nx):
            for e in range(ny):
                here = (slice(None), slice(None), slice(a * tt, (a + 1) * tt), slice(c * tx, (c + 1) * tx),
                        slice(e * ty, (e + 1) * ty))
                t0, x0, y0 = _box(a, wt, nt) * tt, _box(c, wx, nx) * tx, _box(e, wy, ny) * ty
                box = (slice(None), slice(None), slice(t0, t0 + wt * tt), slice(x0, x0 + wx * tx),
                       slice(y0, y0 + wy * ty))
                qs = q[here].reshape(b, nh, -1, d).float()
                ks = k[box].reshape(b, nh, -1, d).float()
                vs = v[box].reshape(b, nh, -1, d).float()
                s = qs @ ks.transpose(-1, -2) * d ** -0.5
                p = torch.exp(s - s.amax(dim=-1, keepdim=True))
                o = (p / p.sum(dim=-1, keepdim=True)) @ vs
                out[here] = o.reshape(b, nh, tt, tx, ty, d).to(q.dtype)
    return out
