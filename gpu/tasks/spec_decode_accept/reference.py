# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Speculative-sampling verification. Each sequence brings K draft tokens with the draft model's distributions, and
the target model's distributions at the K draft positions plus one more. Draft token i is accepted while
u_accept[i] < p_target(x_i) / p_draft(x_i); the first rejection stops the walk and the next token is drawn from the
residual max(0, p_target - p_draft) at that position; when all K are accepted it is drawn from the target's extra
(bonus) distribution. Draws are inverse-CDF lookups with the given uniform u_sample, in vocabulary order, on the
unnormalised weights: the token j with C[j-1] <= u * C[V-1] < C[j], C the running sum. All in fp64 here."""

import math

import torch


def _walk(draft_probs, target_probs, draft_tokens, u_accept):
    """(number of accepted draft tokens (B,) int64, the weights the next token is drawn from (B, V) fp64)."""
    b, k, v = draft_probs.shape
    idx = draft_tokens[:, :, None]
    p_d = draft_probs.gather(2, idx).squeeze(2).double()
    p_t = target_probs[:, :k].gather(2, idx).squeeze(2).double()
    accept = u_accept.double() < p_t / p_d
    n = accept.long().cumprod(dim=1).sum(dim=1)
    rows = torch.arange(b, device=draft_probs.device)
    at = n.clamp(max=k - 1)
    residual = (target_probs[rows, at].double() - draft_probs[rows, at].double()).clamp(min=0.0)
    bonus = target_probs[:, k].double()
    weights = torch.where((n < k)[:, None], residual, bonus)
    return n, weights


def _inverse_cdf(weights, u):
    c = weights.cumsum(dim=1)
    target = u.double()[:, None] * c[:, -1:]
    return torch.searchsorted(c, target, right=True).clamp(max=weights.shape[1] - 1).squeeze(1)


def _llm_logits(r, rows, v):
    """Logits shaped like a language model's: a Gaussian tail over the vocabulary plus a head of 8 boosted tokens
    per row, so a row has likely tokens whatever V is."""
    logits = r.normal(*rows, v, scale=1.5)
    head = r.randint(0, v, *rows, 8)
    boost = math.log(v) + r.uniform(*rows, 8, low=-3.0, high=2.0)
    return logits.scatter_add(-1, head, boost)


def make_inputs(shape, r):
    b, k, v = shape["B"], shape["K"], shape["V"]
    target_logits = _llm_logits(r, (b, k + 1), v)
    # the draft model is a noisier copy of the target
    draft_logits = target_logits[:, :k] + r.normal(b, k, v, scale=0.6)
    target_probs = torch.softmax(target_logits, dim=-1)
    draft_probs = torch.softmax(draft_logits, dim=-1)
    del target_logits, draft_logits
    # draft tokens are samples of the draft distributions
    c = draft_probs.cumsum(dim=-1)
    pick = r.uniform(b, k)[:, :, None] * c[:, :, -1:]
    draft_tokens = torch.searchsorted(c, pick).clamp(max=v - 1).squeeze(2)
    del c
    # acceptance uniforms at least 0.02 away from the ratio they are compared with
    idx = draft_tokens[:, :, None]
    ratio = (target_probs[:, :k].gather(2, idx).double() / draft_probs.gather(2, idx).double()).squeeze(2)
    u_accept = r.uniform(b, k).double()
    near = (u_accept - ratio).abs() < 0.02
    u_accept = torch.where(near, torch.where(ratio > 0.05, ratio - 0.03, ratio + 0.03), u_accept).float()
    # u_sample sits in the middle of the interval of a token holding at least 0.1% of the weight
    _, weights = _walk(draft_probs, target_probs, draft_tokens, u_accept)
    w = weights / weights.sum(dim=1, keepdim=True)
    eligible = w >= 1e-3
    eligible |= (~eligible.any(dim=1, keepdim=True)) & (w == w.amax(dim=1, keepdim=True))
    chosen = (r.uniform(b, v) * eligible).argmax(dim=1, keepdim=True)
    hi = w.cumsum(dim=1).gather(1, chosen)
    lo = hi - w.gather(1, chosen)
    u_sample = ((lo + hi) / 2).squeeze(1).float()
    return {"draft_probs": draft_probs, "target_probs": target_probs, "draft_tokens": draft_tokens,
            "u_accept": u_accept, "u_sample": u_sample}


def reference(draft_probs, target_probs, draft_tokens, u_accept, u_sample):
    n, weights = _walk(draft_probs, target_probs, draft_tokens, u_accept)
    return n, _inverse_cdf(weights, u_sample)
