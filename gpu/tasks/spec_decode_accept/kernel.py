# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write each sequence's accepted count into num_accepted and the token drawn after them into
next_token, both (B,) int64."""

import torch


def kernel(draft_probs: torch.Tensor, target_probs: torch.Tensor, draft_tokens: torch.Tensor,
           u_accept: torch.Tensor, u_sample: torch.Tensor, num_accepted: torch.Tensor,
           next_token: torch.Tensor) -> None:
    raise NotImplementedError("speculative verification kernel not written yet")
