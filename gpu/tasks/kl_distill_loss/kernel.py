# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Fill in kernel(): write the per-token tau^2 * KL(softmax(teacher / tau) || softmax(student / tau)) into loss,
(T,) fp32, with tau = 2."""

import torch


def kernel(student_logits: torch.Tensor, teacher_logits: torch.Tensor, loss: torch.Tensor) -> None:
    raise NotImplementedError("KL distillation kernel not written yet")
