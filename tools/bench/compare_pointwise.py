#!/usr/bin/env python3
"""Times the pointwise benchmark cases in PyTorch (eager and torch.compile) and a
device-to-device copy of the same bytes, reads minifuser's times from stdin (lines
"case <name> <us> <bytes>" printed by pointwise_bench) and prints ratios.

Every time here is taken the way pointwise_bench takes ours: CUDA events around each call,
back to back after a warm-up, median of 100 calls. The copy moves as many bytes as the case
(half read, half written), so `x copy` is our time over the time the memory system needs."""
import math
import sys

import torch

M, N = 32 * 1024, 4 * 1024
BIG = 128 * 1024 * 1024


def median_us(fn, iters=100, per_sample=1):
    """Median over `iters` samples of CUDA events around `per_sample` back-to-back calls of
    `fn`, per call (per_sample > 1: a short call does not show its launch gaps)."""
    for _ in range(10):
        fn()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(per_sample):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000 / per_sample)
    times.sort()
    return times[len(times) // 2]


def gelu_tanh(x, y):
    v = x.float() * y.float()
    k = math.sqrt(2.0 / math.pi)
    return (0.5 * v * (1.0 + torch.tanh(k * (v + 0.044715 * v * v * v)))).to(torch.bfloat16)


def cases():
    f32, bf16 = torch.float32, torch.bfloat16
    x, y = torch.randn(BIG, device="cuda"), torch.randn(BIG, device="cuda")
    yield "add_mul_fp32", (lambda a, b: (a + b) * 2), (x, y)
    xb, yb = x.to(bf16), y.to(bf16)
    del x, y
    yield "gelu_bf16", gelu_tanh, (xb, yb)
    del xb, yb
    X = torch.randn(M, N, device="cuda", dtype=f32)
    yield "bias_relu_fp32", (lambda a, b: torch.relu(a + b)), (X, torch.randn(N, device="cuda"))
    yield "col_mul_fp32", (lambda a, b: a * b), (X, torch.randn(M, 1, device="cuda"))


def read_ours(stream):
    """minifuser's lines "case <name> <us> <bytes> [heuristics...]" as {name: (us, bytes)}."""
    ours = {}
    for line in stream:
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "case":
            ours[parts[1]] = (float(parts[2]), int(parts[3]))
    return ours


def report(ours, cases, reads_only=False):
    """One line per case of `cases` (name, fn, args) that minifuser timed: the copy of the same
    bytes, ours, PyTorch eager and torch.compile, with ratios. The copy moves the case's bytes
    (half read, half written); with `reads_only` (a reduction reads its bytes and writes
    little) it is the time a copy takes to read them (half of copying them)."""
    print(f"{'case':<22}{'bytes MB':>9}{'copy us':>9}{'ours us':>9}{'ours GB/s':>10}"
          f"{'x copy':>8}{'eager us':>10}{'compile us':>11}{'compile/ours':>13}")
    for name, fn, args in cases:
        if name not in ours:
            continue
        us, nbytes = ours[name]
        src = torch.empty(nbytes if reads_only else nbytes // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        copy = median_us(lambda: dst.copy_(src)) / (2 if reads_only else 1)
        eager = median_us(lambda: fn(*args))
        compiled = torch.compile(fn)
        comp = median_us(lambda: compiled(*args))
        del src, dst
        print(f"{name:<22}{nbytes / 1e6:>9.0f}{copy:>9.1f}{us:>9.1f}{nbytes / us / 1e3:>10.0f}"
              f"{copy / us:>8.2f}{eager:>10.1f}{comp:>11.1f}{comp / us:>13.2f}")


def main():
    report(read_ours(sys.stdin), cases())


if __name__ == "__main__":
    main()
