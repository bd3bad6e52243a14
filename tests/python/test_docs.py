"""Runs each ```python block of docs/python.md (the tutorial), as its own script."""

import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_tutorial_has_its_four_parts():
    titles = re.findall(r"^### (.*)$", DOC.read_text(), re.M)
    assert titles == ["A pointwise fusion", "A reduction", "A normalization",
                      "The layout op feeding a grouped GEMM's scales"]
    assert len(BLOCKS) == 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_snippet_runs(index):
    exec(compile(BLOCKS[index], f"docs/python.md block {index}", "exec"), {})


def test_readme_example_runs():
    readme = (DOC.parents[1] / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"python -c '\n(.*?)'\n", section, re.S).group(1)
    exec(compile(code, "README.md, Python", "exec"), {})
