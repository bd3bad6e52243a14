"""pytest set-up for minifuser's Python tests (tests/python; docs/python.md).

ctest runs them from <build>/venv with PYTHONPATH=<build>/python: one ctest per file, label
`python`, with `-m "not gpu" --fail-on-skip` (a skipped CPU test fails the run instead of
counting as passed); the `gpu` tests (marker gpu) run with `-m gpu` under the ctest label gpu
and exit 77 (ctest: skipped) when torch or a CUDA device is missing.
"""

import os

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption("--fail-on-skip", action="store_true",
                     help="fail the session when a test was skipped")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs torch with a CUDA device")


def cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available() and os.environ.get("MINIFUSER_NO_DEVICE") != "1"


def pytest_collection_modifyitems(config, items):
    if config.getoption("-m") == "gpu" and not cuda_available():
        pytest.exit("gpu tests: no torch with a CUDA device here", returncode=77)


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if session.config.getoption("--fail-on-skip") and reporter and reporter.stats.get("skipped"):
        reporter.write_line(f"--fail-on-skip: {len(reporter.stats['skipped'])} tests skipped")
        session.exitstatus = 1


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def randn(rng, shape, dtype=np.float32):
    """Random values in [-2, 2), never 0."""
    x = rng.uniform(-2.0, 2.0, size=shape)
    x[x == 0] = 0.5
    return x.astype(dtype)
