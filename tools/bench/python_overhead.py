#!/usr/bin/env python3
"""Host overhead of the Python frontend (GPU machine; docs/python.md, "Host overhead").

Times, per call, a cached fd.execute of the one-kernel fusion (a + b) * 2.0 on 1-element CUDA
tensors (tiny kernel: wall time is host time), C++'s FusionExecutorCache::runFusionWithInputs
of the same fusion (build/tools/pointwise_bench --overhead-only), and torch.compile's cached
call of the same function; each the wall time over 2000 back-to-back calls after 100 warm-up
calls, one synchronization at the end included (as pointwise_bench). Prints a table, the
Python frontend minus C++ against the +5 us target, and the torch calls an execute makes (or
could make instead) timed alone.

usage: PYTHONPATH=build/python python3 tools/bench/python_overhead.py [build folder]
"""

import os
import subprocess
import sys
import time

import torch

import minifuser
from minifuser import DataType, FusionDefinition

TARGET_US = 5.0


def wall_us(fn, warmup=100, iters=2000):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters * 1e6


def cpp_fec_us(build):
    out = subprocess.run([os.path.join(build, "tools", "pointwise_bench"), "--overhead-only"],
                         capture_output=True, text=True, check=True).stdout
    words = next(line for line in out.splitlines() if line.startswith("overhead")).split()
    fields = dict(zip(words[1::2], words[2::2]))
    return float(fields["fec_call_us"]), float(fields["bare_launch_us"])


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
    a = torch.rand(1, device="cuda")
    b = torch.rand(1, device="cuda")
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Float)
        y = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Float)
        fd.add_output(fd.ops.mul(fd.ops.add(x, y), 2.0))
    (out,) = fd.execute([a, b])
    torch.testing.assert_close(out, (a + b) * 2.0)
    py_us = wall_us(lambda: fd.execute([a, b]))
    assert fd.kernels_compiled() == 1, "the timed calls compiled again"

    compiled = torch.compile(lambda p, q: (p + q) * 2.0)
    compiled(a, b)
    tc_us = wall_us(lambda: compiled(a, b))
    eager_us = wall_us(lambda: (a + b) * 2.0)
    cpp_us, bare_us = cpp_fec_us(build)

    rows = [("bare cuLaunchKernel (C++)", bare_us),
            ("FusionExecutorCache::runFusionWithInputs (C++)", cpp_us),
            ("minifuser fd.execute (Python)", py_us),
            ("torch.compile cached call", tc_us),
            ("PyTorch eager (2 kernels)", eager_us)]
    print(f"host time per call, 1-element fusion (a + b) * 2.0, {torch.cuda.get_device_name()}")
    print(f"{'path':<50} {'us/call':>8}")
    for name, us in rows:
        print(f"{name:<50} {us:>8.2f}")
    extra = py_us - cpp_us
    print(f"{'Python frontend - C++':<50} {extra:>8.2f}  (target +{TARGET_US:.1f} us: "
          f"{'met' if extra <= TARGET_US else 'missed'})")

    # Where the Python frontend's time may go: the torch calls an execute makes or could make
    # instead (DLPack export and import of one tensor, the current stream), each alone.
    steps = [("fd._fusion.execute (no Python wrapper)", lambda: fd._fusion.execute([a, b])),
             ("a.__dlpack__()", lambda: a.__dlpack__()),
             ("torch.utils.dlpack.from_dlpack(a)", lambda: torch.utils.dlpack.from_dlpack(a)),
             ("torch._C._cuda_getCurrentRawStream(0)",
              lambda: torch._C._cuda_getCurrentRawStream(0)),
             ("torch.empty(1, device='cuda')", lambda: torch.empty(1, device="cuda"))]
    if hasattr(torch._C, "_to_dlpack") and hasattr(torch._C, "_from_dlpack"):
        steps += [("torch._C._to_dlpack(a)", lambda: torch._C._to_dlpack(a)),
                  ("torch._C._from_dlpack(torch._C._to_dlpack(a))",
                   lambda: torch._C._from_dlpack(torch._C._to_dlpack(a)))]
    print("steps, each alone:")
    for name, fn in steps:
        print(f"  {name:<48} {wall_us(fn):>8.2f}")


if __name__ == "__main__":
    main()
