"""One release against the lock: its tree, the reference tree, and verify's findings for it."""

from __future__ import annotations

import hashlib
import pickle
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from walkthrough.lock import Lock, stage_hooks
from walkthrough.source import SourceError, TorchSource, open_source
from walkthrough.symbols import Resolver, resolver_for
from walkthrough.verify import Finding, Report, verify


def reference_source(spec: str, lock: Lock) -> TorchSource | None:
    """The locked release's tree (``auto``: the installed torch when it is that release, else its wheel).

    Diffs, the reference's code of a gone excerpt and similarity hints need it; without it they are left out."""
    if spec != "auto":
        return open_source(spec)
    try:
        installed = open_source("installed")
        if installed.base_version == lock.base_version and installed.git_version == lock.git_version:
            return installed
    except SourceError:
        pass
    try:
        return open_source(lock.base_version)
    except SourceError as exc:
        print(f"note: no tree of the locked torch ({exc}); diffs and the reference's code are left out",
              file=sys.stderr)
        return None


@dataclass(frozen=True)
class ReleaseView:
    """What a page built for one release needs: its resolver and, for a non-reference release, the drift."""

    target: Resolver
    lock: Lock | None  # None: a site without a lock, always built as its own reference
    reference: Resolver | None  # the locked release's tree (the target itself when it is the reference)
    report: Report | None  # verify's findings; None for the reference release
    _by_key: dict[tuple[str, str], Finding] = field(default_factory=dict, compare=False, repr=False)

    @property
    def release(self) -> str:
        return self.target.source.base_version

    @property
    def is_reference(self) -> bool:
        return self.report is None

    @property
    def reference_version(self) -> str:
        """The release the pages were written and locked against (this one when there is no lock)."""
        return self.lock.base_version if self.lock is not None else self.release

    def finding(self, kind: str, name: str) -> Finding | None:
        """Verify's finding for a symbol (qualname), an excerpt (``page: key``) or a fact (its claim)."""
        if self.report is None:
            return None
        if not self._by_key:
            self._by_key.update({(f.kind, f.name): f for f in self.report.findings})
        return self._by_key.get((kind, name))


def _report_key(lock: Lock, target: TorchSource, reference: TorchSource | None, hooks: list[tuple[str, str]]) -> str:
    digest = hashlib.sha256(repr((asdict(lock), target.version, target.git_version, target.origin,
                                  reference and (reference.version, reference.git_version), hooks)).encode())
    # Any of the walkthrough's own modules may decide a report (classifier, resolver, excerpts, sources):
    # all of them key it, so no module added later is forgotten.
    package = Path(__file__).resolve().parent.parent
    for module in sorted(package.glob("*.py")):
        digest.update(module.read_bytes())
    return digest.hexdigest()


def _cached_verify(lock: Lock, resolver: Resolver, baseline: Resolver | None, hooks: list[tuple[str, str]],
                   cache: Path | None) -> Report:
    """verify(), its report kept in ``cache`` (a build's doctree dir) so a rebuild with nothing changed skips it."""
    key = _report_key(lock, resolver.source, baseline.source if baseline else None, hooks)
    path = cache / "walkthrough-release-report.pickle" if cache else None
    if path is not None and path.exists():
        try:
            stored_key, report = pickle.loads(path.read_bytes())
            if stored_key == key:
                return report
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            pass  # a damaged or older cache is recomputed
    report = verify(lock, resolver, baseline, hooks)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps((key, report)))
    return report


def open_release(target: TorchSource, lock: Lock, reference_spec: str = "auto",
                 hooks: list[tuple[str, str]] | None = None, cache: Path | None = None) -> ReleaseView:
    """The view of one release: for the reference, its own tree; for another, verify against the lock (one classifier).

    With ``cache`` (a directory), the verify report is reused while lock, trees, hooks and the classifier's code are unchanged."""
    resolver = resolver_for(target)
    if target.base_version == lock.base_version:
        return ReleaseView(resolver, lock, resolver, None)
    reference = reference_source(reference_spec, lock)
    baseline = resolver_for(reference) if reference is not None else None
    report = _cached_verify(lock, resolver, baseline, stage_hooks() if hooks is None else hooks, cache)
    return ReleaseView(resolver, lock, baseline, report)
