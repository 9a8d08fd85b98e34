"""``trace --profile``: torch's ``USDT: … profiler_start/stop`` lines stay off the terminal, the script's own pass."""

from __future__ import annotations

import pytest

from tests.conftest import run_python

pytestmark = pytest.mark.torch

SCRIPT = """\
import sys, torch
@torch.compile(backend="eager")
def f(x):
    return x * 2 + 1
for _ in range(30):
    f(torch.ones(4))
print("script: on stdout")
print("script: on stderr", file=sys.stderr)
print("USDT: the script's own line", file=sys.stderr)
"""


def test_profile_keeps_torch_s_profiler_lines_out_of_the_script_s_output(tmp_path):
    script = tmp_path / "steady.py"
    script.write_text(SCRIPT)
    result = run_python(["-m", "tracers", "trace", "--profile", "--quiet", "--out", str(tmp_path / "t"), str(script)])
    assert result.returncode == 0, result.stderr
    assert "script: on stdout" in result.stdout
    assert "script: on stderr\nUSDT: the script's own line\n" in result.stderr
    assert "] profiler_start" not in result.stderr and "] profiler_stop" not in result.stderr
    assert (tmp_path / "t" / "steady-cpu-cold.json").exists()
