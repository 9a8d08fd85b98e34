"""What a TORCH_TRACE log holds of torch.export, counted apart from its compiles (export's content is not analysed)."""

from __future__ import annotations

from collections import Counter
from typing import Any

# torch.export's records (dtrace_structured: written under draft_export, or with TORCH_DTRACE set), v2.13.0:
# "export" ("start!") and "exported_program" in torch/export/_trace.py, guard_added and
# propagate_real_tensors_provenance in torch/fx/experimental/symbolic_shapes.py, missing_fake_kernel in
# torch/_subclasses/fake_tensor.py. A record with a compile id belongs to a torch.compile, not to an export.
STARTED, PROGRAM = "export", "exported_program"
EXPORT_KINDS = frozenset({STARTED, PROGRAM, "guard_added", "propagate_real_tensors_provenance", "missing_fake_kernel",
                          "mismatched_fake_kernel", "create_unbacked_symbol", "expression_created"})
MAX_PROBLEMS = 20  # kept with their details; the rest only counted (a draft export of a large model logs many)
MAX_TEXT = 300  # characters of an expression or a reason kept: enough to recognise it
# A non-strict export logs none of the records above (no start, no program): only what its fake tensors describe,
# each record's stack passing through torch.export's own files, which is how the log shows it was an export.
_EXPORT_FILES = ("/torch/export/", "/torch/_export/")


class ExportPart:
    """Fed each record without a compile id; ``as_dict`` is what the trace keeps (None: the log holds no export)."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.problems: list[dict[str, str]] = []
        self.problem_count = 0
        self.inside = 0  # other records made inside torch.export's call (their stack says so)

    def note(self, name: str, metadata: dict[str, Any]) -> None:
        if name not in EXPORT_KINDS:
            return
        self.kinds[name] += 1
        problem = _problem(name, metadata.get(name))
        if problem is not None:
            self.problem_count += 1
            if len(self.problems) < MAX_PROBLEMS:
                self.problems.append(problem)

    def note_stack(self, files: list[str]) -> None:
        """Another record outside any compile, by the files of its stack: one made inside torch.export's call."""
        if any(marker in path for path in files for marker in _EXPORT_FILES):
            self.inside += 1

    def as_dict(self, with_compiles: bool) -> dict[str, Any] | None:
        """``with_compiles``: the log has compiles too (analysed as any other; vocabulary/exported.py says so)."""
        if not self.kinds and not self.inside:
            return None
        return {"started": self.kinds[STARTED], "programs": self.kinds[PROGRAM],
                "records": dict(sorted(self.kinds.items())), "problem_count": self.problem_count,
                "problems": self.problems, "with_compiles": with_compiles,
                **({"inside_export": self.inside} if self.inside else {})}


def _problem(name: str, details: object) -> dict[str, str] | None:
    """The problems tlparse --export lists (its "failures", src/lib.rs): a guard evaluated while exporting, a
    data-dependent expression specialized, a custom op without a fake kernel or with one that disagrees."""
    details = details if isinstance(details, dict) else {}

    def text(key: str) -> str:
        return str(details.get(key, "?"))[:MAX_TEXT]

    if name == "guard_added" and details.get("prefix") == "eval":
        return {"kind": "guard evaluated", "expr": text("expr")}
    if name == "propagate_real_tensors_provenance":
        return {"kind": "data-dependent expression", "expr": text("expr"), "result": text("result")}
    if name == "missing_fake_kernel":
        return {"kind": "missing fake kernel", "op": text("op")}
    if name == "mismatched_fake_kernel":
        return {"kind": "mismatched fake kernel", "op": text("op"), "reason": text("reason")}
    return None
