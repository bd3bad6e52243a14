#!/usr/bin/env python3
"""Times the transpose benchmark cases (fp32 x.t().contiguous() * 2 on [32Ki, 4Ki]; bf16
(q.permute(0, 2, 1, 3) * 0.5).contiguous() and q.permute(0, 3, 2, 1) - 1 on [8, 4096, 32,
128]) in PyTorch, eager and torch.compile, and a device-to-device copy of the same bytes,
reads minifuser's times from stdin (lines "case <name> <us> <bytes>" printed by
transpose_bench) and prints ratios (compare_pointwise.report). The issue's target is 0.95x
the copy's rate on an H200."""
import sys

import torch

from compare_pointwise import read_ours, report


def transpose_fp32(x):
    return x.t().contiguous() * 2


def permute0213(q):
    return (q.permute(0, 2, 1, 3) * 0.5).contiguous()


def permute0321(q):
    return (q.permute(0, 3, 2, 1) - 1).contiguous()


def cases():
    x = torch.randn(32 * 1024, 4 * 1024, device="cuda", dtype=torch.float32)
    yield "transpose_fp32", transpose_fp32, (x,)
    del x
    q = torch.randn(8, 4096, 32, 128, device="cuda", dtype=torch.bfloat16)
    yield "permute0213_bf16", permute0213, (q,)
    yield "permute0321_bf16", permute0321, (q,)


def main():
    report(read_ours(sys.stdin), cases())


if __name__ == "__main__":
    main()
