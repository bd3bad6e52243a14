#!/usr/bin/env python3
"""Times the persistent benchmark cases (bf16 softmax over the last axis and RMS norm of
[32Ki, 4Ki]) in PyTorch, eager and torch.compile, and a device-to-device copy of the same
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


def cases():
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    yield "softmax_bf16", softmax, (x,)
    yield "rms_norm_bf16", rms_norm, (x, torch.randn(N, device="cuda", dtype=torch.bfloat16))


def main():
    report(read_ours(sys.stdin), cases())


if __name__ == "__main__":
    main()
