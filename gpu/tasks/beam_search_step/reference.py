# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""One beam-search expansion step: every beam's running score plus the log-probability of every next token gives
W*V candidates per batch entry; the 2W best (twice the beam width, so finished hypotheses can be set aside and W
live ones still remain) are returned in descending score order with their token and source beam."""

import torch


def _candidates(logprobs, beam_scores):
    b, w, v = logprobs.shape
    return (beam_scores[:, :, None] + logprobs).reshape(b, w * v)  # one fp32 addition per candidate


def make_inputs(shape, r):
    b, w, v = shape["B"], shape["W"], shape["V"]
    logprobs = torch.log_softmax(r.normal(b, w, v, scale=2.0), dim=-1)
    # running scores of beams several tokens in: negative, within a few nats of each other
    beam_scores = -r.uniform(b, w, low=2.0, high=8.0)
    # the 2W + 1 best candidates of a row must all differ, so the selection and its order are unique
    for _ in range(20):
        top = _candidates(logprobs, beam_scores).topk(2 * w + 1, dim=1).values
        tied = (top[:, :-1] == top[:, 1:]).any(dim=1)
        if not bool(tied.any()):
            break
        jitter = r.uniform(b, w, v, low=-1e-3, high=1e-3)
        logprobs = torch.where(tied[:, None, None], logprobs + jitter, logprobs)
    else:
        raise RuntimeError("could not break ties among the best beam candidates")
    return {"logprobs": logprobs, "beam_scores": beam_scores}


def reference(logprobs, beam_scores):
    v = logprobs.shape[2]
    scores, flat = _candidates(logprobs, beam_scores).topk(2 * logprobs.shape[1], dim=1, sorted=True)
    return scores, flat % v, flat // v

