#!/usr/bin/env python3
"""Times the reduction benchmark cases in PyTorch (eager and torch.compile) and the copy rate
of the same input bytes, reads minifuser's times from stdin (lines
"case <name> <us> <bytes> <heuristics>" printed by reduction_bench) and prints ratios.

Times are taken and printed by compare_pointwise.report (CUDA events around each call, back
to back after a warm-up, median of 100 calls). A reduction reads its input once and writes
little, so the bandwidth limit is a device-to-device copy of the input's bytes (read and
written): `x copy` is the copy's time over ours for the same bytes moved, counting the
copy's reads only (half its traffic), i.e. ours against the read rate the memory system
reaches in a copy."""
import sys

import torch

from compare_pointwise import read_ours, report

M, N = 32 * 1024, 4 * 1024
BIG = 128 * 1024 * 1024


def cases():
    X = torch.randn(M, N, device="cuda")
    yield "sum_last_axis_fp32", (lambda a: a.sum(dim=1)), (X,)
    yield "sum_first_axis_fp32", (lambda a: a.sum(dim=0)), (X,)
    del X
    yield "sum_vector_fp32", (lambda a: a.sum()), (torch.randn(BIG, device="cuda"),)
    # The persistent cases (softmax, RMS norm) are compare_persistent.py's.


def main():
    report(read_ours(sys.stdin), cases(), reads_only=True)


if __name__ == "__main__":
    main()
