#!/usr/bin/env python3
"""Times the persistent benchmark cases (bf16 softmax over the last axis, RMS norm, residual
add + RMS norm and layer norm backward of [32Ki, 4Ki]) in PyTorch, eager and torch.compile, and a device-to-device copy of the same
bytes, reads minifuser's times from stdin (lines "case <name> <us> <bytes>" printed by
persistent_bench) and prints ratios. Times are taken as compare_pointwise.py takes them
(compare_pointwise.report). The copy moves the case's bytes (half read, half written): a single-pass kernel
can at best match it; torch.compile's softmax reads its input twice."""
import sys

import torch

from compare_pointwise import read_ours, report

M, N = 32 * 1024, 4 * 1024
EPS = 1e-6


def softmax(x):
    return torch.softmax(x.float(), dim=-1).to(torch.bfloat16)


def rms_norm(x, w):
    v = x.float()
    return (v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(torch.bfloat16)


def residual_rms_norm(x, r, w):
    h = x + r
    return h, rms_norm(h, w)


def layer_norm_bwd(dy, x, mean, rstd, w):
    """dx, dw, db as aten's layer norm backward computes them (minifuser writes dw and db in
    float, PyTorch in bf16: 16 KiB of 768 MiB)."""
    return torch.ops.aten.native_layer_norm_backward(
        dy, x, [N], mean.view(M, 1), rstd.view(M, 1), w, w, [True, True, True])


def cases():
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, device="cuda", dtype=torch.bfloat16)
    yield "softmax_bf16", softmax, (x,)
    yield "rms_norm_bf16", rms_norm, (x, w)
    yield "residual_rms_norm_bf16", residual_rms_norm, (x, torch.randn_like(x), w)
    mean = torch.randn(M, device="cuda", dtype=torch.float32)
    rstd = torch.rand(M, device="cuda", dtype=torch.float32) + 0.5
    yield "layer_norm_bwd_bf16", layer_norm_bwd, (torch.randn_like(x), x, mean, rstd, w)


def main():
    report(read_ours(sys.stdin), cases())


if __name__ == "__main__":
    main()
