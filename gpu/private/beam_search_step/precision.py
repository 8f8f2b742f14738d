# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""The grader's precision pair for beam_search_step (gpu/precision.py): a two-stage selection as a GPU kernel
does it (each beam's own 2W best in vocabulary chunks, then a merge of the W short lists), and a step that ranks
candidates by the new token's log-probability alone, forgetting the beams' running scores."""

import torch

VARIANT = "ignores the running beam scores (ranks by the token log-probabilities alone)"
CHUNK = 128


def _select(cand):
    """cand (B, W, V) fp32 -> the 2W best per batch entry: (scores, tokens, beams), best first."""
    b, w, v = cand.shape
    k = 2 * w
    vals, toks = [], []
    for s in range(0, v, CHUNK):  # stage 1: the 2W best of every chunk of every beam
        part = cand[:, :, s:s + CHUNK]
        kk = min(k, part.shape[2])
        pv, pi = part.topk(kk, dim=2)
        vals.append(pv)
        toks.append(pi + s)
    vals = torch.cat(vals, dim=2)
    toks = torch.cat(toks, dim=2)
    beam = torch.arange(w).view(1, w, 1).expand_as(toks)
    # stage 2: merge, ordering by score (then by flat index, which never decides on tie-free inputs)
    flat_v = vals.reshape(b, -1)
    flat_t = toks.reshape(b, -1)
    flat_b = beam.reshape(b, -1)
    order = torch.argsort(-flat_v, dim=1, stable=True)[:, :k]
    return flat_v.gather(1, order), flat_t.gather(1, order), flat_b.gather(1, order)


def alternate(logprobs, beam_scores):
    return _select(beam_scores[:, :, None] + logprobs)


def variant(logprobs, beam_scores):
    return _select(logprobs.clone())
