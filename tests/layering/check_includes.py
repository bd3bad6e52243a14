#!/usr/bin/env python3
"""Layering check: every csrc/<phase> file includes only headers of phases its phase may use.

The allowed graph is read from the mf_add_phase(...) calls of csrc/CMakeLists.txt (their
DEPENDS lists, the same edges CMake links), so the build and this check cannot disagree. A
phase may use itself and the transitive closure of its DEPENDS. A DEPENDS entry that the
phase's files never include is reported too, so the lists stay exact.

usage: check_includes.py <csrc folder>      exit 1 and one line per violation on failure
"""
import pathlib
import re
import sys

PHASE_CALL = re.compile(r"mf_add_phase\((\w+)(.*?)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def read_phases(cmake_text):
    """{phase: [phases named in DEPENDS]} from the mf_add_phase calls (mf_x -> x)."""
    phases = {}
    for name, body in PHASE_CALL.findall(cmake_text):
        words = body.split()
        deps = words[words.index("DEPENDS") + 1:] if "DEPENDS" in words else []
        phases[name] = [d[3:] for d in deps if d.startswith("mf_")]
    return phases


def closure(phases, phase):
    seen, todo = set(), list(phases[phase])
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(phases.get(p, []))
    return seen


def check(csrc):
    phases = read_phases((csrc / "CMakeLists.txt").read_text())
    errors = []
    for phase, deps in sorted(phases.items()):
        allowed = closure(phases, phase) | {phase}
        used = set()
        folder = csrc / phase
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".h", ".cpp", ".cu", ".cuh"):
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) not in phases:
                    continue
                used.add(m.group(1))
                if m.group(1) not in allowed:
                    errors.append(
                        f"{path.relative_to(csrc.parent)}:{n}: {line.strip()}: phase '{phase}' "
                        f"may use only {', '.join(sorted(allowed))} (DEPENDS in csrc/CMakeLists.txt)")
        # Every direct dependency must be used directly or through another listed one.
        for d in deps:
            through = any(d in closure(phases, o) for o in deps if o != d)
            if d not in used and not through:
                errors.append(f"csrc/CMakeLists.txt: phase '{phase}' DEPENDS on mf_{d} but no "
                              f"file of csrc/{phase} includes a header of csrc/{d}")
    return errors


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    errors = check(pathlib.Path(sys.argv[1]).resolve())
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
