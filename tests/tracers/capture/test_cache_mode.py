"""A cold run's fresh cache dir is seeded with the ISA check's test programs kept from earlier cold runs (what the
user's own runs keep in torch's cache dir), and adds those it built; nothing else of a cold run is kept."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tracers.capture import cachemode

pytestmark = pytest.mark.pure

_CHECK = "#include <ATen/cpu/vec/functional.h>\n// the ISA check's source\n"


def test_a_cold_run_keeps_the_isa_checks_it_built_and_the_next_finds_them(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "torch._inductor.cpu_vec_isa", SimpleNamespace(VecISA=SimpleNamespace(
        _avx_code=_CHECK)))
    with cachemode.cache_mode("cold") as first:
        made = Path(first) / "q6"
        made.mkdir()
        (made / "cq6abc.cpp").write_text(_CHECK)
        (made / "cq6abc.so").write_bytes(b"\x7fELF built")
        (made / "ckernel.cpp").write_text("// a kernel of the program: not kept")
        (made / "ckernel.so").write_bytes(b"\x7fELF kernel")
    store = cachemode.isa_store()
    assert sorted(path.name for path in store.rglob("*") if path.is_file()) == ["cq6abc.cpp", "cq6abc.so"]
    with cachemode.cache_mode("cold") as second:
        assert (Path(second) / "q6" / "cq6abc.so").read_bytes() == b"\x7fELF built"  # found built: only loaded
        assert not (Path(second) / "q6" / "ckernel.so").exists()  # the program's own kernels compile again
    assert not Path(second).exists()


def test_without_torch_inductor_loaded_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "torch._inductor.cpu_vec_isa", raising=False)
    with cachemode.cache_mode("cold") as directory:
        (Path(directory) / "x.cpp").write_text(_CHECK)
    assert not cachemode.isa_store().exists()
