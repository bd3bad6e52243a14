#!/usr/bin/env python3
"""Tests of check_includes.py: it passes on a clean tree, and reports a back-edge (naming
file, line and include), an include outside the transitive closure and an unused DEPENDS;
in the real tree, passes/ may include ir/ and support/ only."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
CHECK = HERE / "check_includes.py"
CSRC = HERE.parent.parent / "csrc"

CMAKE = """
mf_add_phase(support SOURCES support/a.cpp DEPENDS fmt::fmt)
mf_add_phase(ir
  SOURCES ir/b.cpp
  DEPENDS mf_support)
mf_add_phase(lower SOURCES lower/c.cpp DEPENDS mf_ir)
"""


def run(csrc):
    r = subprocess.run([sys.executable, str(CHECK), str(csrc)], capture_output=True, text=True)
    return r.returncode, r.stdout


def tree(root, files):
    (root / "CMakeLists.txt").write_text(CMAKE)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def expect(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "csrc"
        root.mkdir()
        # lower -> ir -> support: lower may include support (transitively reached).
        tree(root, {"support/a.cpp": '#include "support/a.h"\n',
                    "ir/b.cpp": '#include "support/a.h"\n',
                    "lower/c.cpp": '#include "ir/b.h"\n#include "support/a.h"\n'})
        rc, out = run(root)
        expect(rc == 0 and out == "", f"clean tree reported: {out}")

        # A back-edge: ir includes lower.
        (root / "ir/b.cpp").write_text('#include "support/a.h"\n\n#include "lower/c.h"\n')
        rc, out = run(root)
        expect(rc == 1, "back-edge not reported")
        expect('csrc/ir/b.cpp:3: #include "lower/c.h": phase \'ir\' may use only ir, support'
               in out, f"back-edge message: {out}")

        # An unused DEPENDS entry.
        (root / "ir/b.cpp").write_text("\n")
        rc, out = run(root)
        expect(rc == 1 and "phase 'ir' DEPENDS on mf_support but no file of csrc/ir" in out,
               f"unused DEPENDS: {out}")

    # The real tree with one back-edge added: codegen's header included by ir.
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "csrc"
        shutil.copytree(CSRC, copy)
        rc, out = run(copy)
        expect(rc == 0, f"the real tree is not clean: {out}")
        with open(copy / "ir/fusion.cpp", "a") as f:
            f.write('#include "codegen/codegen.h"\n')
        rc, out = run(copy)
        expect(rc == 1 and "csrc/ir/fusion.cpp:" in out and '"codegen/codegen.h"' in out,
               f"back-edge in the real tree: {out}")

    # passes/ sits on ir alone: a fusion pass that includes ops/ (or anything above ir) is
    # reported, and the schedulers may use passes/.
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "csrc"
        shutil.copytree(CSRC, copy)
        with open(copy / "passes/pipeline.cpp", "a") as f:
            f.write('#include "ops/arith.h"\n')
        rc, out = run(copy)
        expect(rc == 1 and "csrc/passes/pipeline.cpp:" in out and
               "phase 'passes' may use only ir, passes, support" in out,
               f"passes including ops: {out}")
    print("ok")


if __name__ == "__main__":
    main()
