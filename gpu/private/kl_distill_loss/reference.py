# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""tau^2 * KL(softmax(teacher / tau) || softmax(student / tau)) per token, tau = 2, fp32 math and fp32 out."""

import torch

TAU = 2.0


def make_inputs(shape, r):
    t, v = shape["T"], shape["V"]
    teacher = r.normal(t, v, scale=2.0)
    student = 0.8 * teacher + r.normal(t, v, scale=1.0)  # a student that roughly follows its teacher
    return {"student_logits": student.to(torch.bfloat16), "teacher_logits": teacher.to(torch.bfloat16)}


def _log_softmax(z):
    z = z - z.amax(dim=-1, keepdim=True)
    return z - z.exp().sum(dim=-1, keepdim=True).log()


def reference(student_logits, teacher_logits):
    log_p = _log_softmax(teacher_logits.float() / TAU)
    log_q = _log_softmax(student_logits.float() / TAU)
    return TAU * TAU * (log_p.exp() * (log_p - log_q)).sum(dim=-1)


def eager(student_logits, teacher_logits):
    """The library path a user would call (F.kl_div on log-softmaxes): the baseline for the audit flag."""
    f = torch.nn.functional
    log_q = f.log_softmax(student_logits.float() / TAU, dim=-1)
    log_p = f.log_softmax(teacher_logits.float() / TAU, dim=-1)
    return TAU * TAU * f.kl_div(log_q, log_p, reduction="none", log_target=True).sum(dim=-1)
