#!/usr/bin/env python3
"""Times the shape-op benchmark cases (shape_bench.cpp) in PyTorch, eager and torch.compile,
and a device-to-device copy of the same bytes, reads minifuser's lines from stdin and prints
two tables: each case against the copy, eager and torch.compile (compare_pointwise.report:
CUDA events around each call, median of 100 after a warm-up, as shape_bench times ours), and
the dynamic reshape per size against the same fusion written statically: the wall time per
call (the hot path where the kernel is short; the target is at most 1 us more than static),
the kernels compiled and the concretizations of its one cache so far.

Lines read: "case <name> <us> <bytes>" and
"dynamic <rows> <dyn call us> <static call us> <dyn us> <static us> <compiles> <concretizations>"."""
import sys

import torch
import torch.nn.functional as F

from compare_pointwise import read_ours, report

M = 32 * 1024
DYNAMIC_ROWS = (1000, 4097, 65536, 1 << 20)


def cases():
    x = torch.randn(M, 4096, device="cuda")
    bias = torch.randn(1024, device="cuda")
    yield "reshape_bias_fp32", (lambda a, b: (a * 2).reshape(4 * M, 1024) + b), (x, bias)
    yield "pad_fp32", (lambda a: F.pad(a, (0, 64)) + 1), (x,)
    del x, bias
    u, v = torch.randn(M, 2048, device="cuda"), torch.randn(M, 2048, device="cuda")
    yield "cat_fp32", (lambda a, b: torch.cat([a, b], 1) * 2), (u, v)
    del u, v
    for rows in DYNAMIC_ROWS:
        yield (f"dynamic_reshape_{rows}", (lambda a, s0, s1: a.reshape(s0, s1) * 2),
               (torch.randn(rows, 256, device="cuda"), 2 * rows, 128))


def main():
    lines = sys.stdin.readlines()
    report(read_ours(lines), cases())
    print()
    print(f"{'dynamic reshape':<18}{'dyn call us':>12}{'static call us':>15}{'dyn - static':>13}"
          f"{'target':>8}{'dyn us':>9}{'static us':>10}{'compiles':>9}{'concretizations':>16}")
    for line in lines:
        p = line.split()
        if len(p) == 8 and p[0] == "dynamic":
            dyn_call, stat_call = float(p[2]), float(p[3])
            extra = dyn_call - stat_call
            print(f"{'[' + p[1] + ', 256]':<18}{dyn_call:>12.2f}{stat_call:>15.2f}{extra:>13.2f}"
                  f"{'met' if extra <= 1.0 else 'missed':>8}{float(p[4]):>9.1f}{float(p[5]):>10.1f}"
                  f"{p[6]:>9}{p[7]:>16}")


if __name__ == "__main__":
    main()
