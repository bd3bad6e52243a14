#!/usr/bin/env python3
"""Keeps README.md's code examples real: each code block that follows a line
`<!-- snippet: <file> <name> -->` must equal, line for line, the lines of <file> (relative to
the repository) between `// readme-snippet begin: <name>` and `// readme-snippet end`, with
their common indentation removed. The file is compiled and run elsewhere (tools/demo.cpp is
the minifuser_demo program, run by the ctest minifuser_demo), so a snippet that drifts from
it fails the ctest readme_snippets.

usage: check_readme_snippets.py [--readme PATH]   (default <repo>/README.md)
"""
import difflib
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- snippet: (\S+) (\S+) -->$")


def source_region(path: pathlib.Path, name: str) -> list[str]:
    lines = path.read_text().splitlines()
    begin = f"// readme-snippet begin: {name}"
    starts = [i for i, line in enumerate(lines) if line.strip() == begin]
    if len(starts) != 1:
        raise ValueError(f"{path}: expected one '{begin}' line, found {len(starts)}")
    start = starts[0] + 1
    for end in range(start, len(lines)):
        if lines[end].strip() == "// readme-snippet end":
            return textwrap.dedent("\n".join(lines[start:end])).splitlines()
    raise ValueError(f"{path}: '{begin}' has no '// readme-snippet end'")


def readme_snippets(readme: pathlib.Path):
    lines = readme.read_text().splitlines()
    for i, line in enumerate(lines):
        m = MARKER.match(line.strip())
        if not m:
            continue
        j = i + 1
        if j >= len(lines) or not lines[j].startswith("```"):
            raise ValueError(f"{readme}:{i + 1}: the snippet marker is not followed by a code block")
        body = []
        for k in range(j + 1, len(lines)):
            if lines[k].startswith("```"):
                yield i + 1, m.group(1), m.group(2), body
                break
            body.append(lines[k])
        else:
            raise ValueError(f"{readme}:{j + 1}: unterminated code block")


def main(argv: list[str]) -> int:
    readme = ROOT / "README.md"
    if len(argv) == 2 and argv[0] == "--readme":
        readme = pathlib.Path(argv[1])
    elif argv:
        print(__doc__, file=sys.stderr)
        return 2
    status, count = 0, 0
    try:
        for line_no, rel, name, body in readme_snippets(readme):
            count += 1
            expected = source_region(ROOT / rel, name)
            if body != expected:
                status = 1
                print(f"{readme}:{line_no}: snippet '{name}' differs from {rel}:")
                sys.stdout.writelines(
                    d + "\n"
                    for d in difflib.unified_diff(expected, body, rel, str(readme), lineterm=""))
    except (OSError, ValueError) as e:
        print(f"check_readme_snippets: {e}", file=sys.stderr)
        return 2
    if count == 0:
        print(f"check_readme_snippets: no snippet markers in {readme}", file=sys.stderr)
        return 2
    if status == 0:
        print(f"check_readme_snippets: {count} snippet(s) of {readme} match their sources")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
