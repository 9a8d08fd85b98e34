"""Which torch recorded a trace, compared with the reference and with the release declared for its device."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.vocabulary.releases import public_version


@dataclass(frozen=True)
class VersionCheck:
    recorded: str  # as the trace says, e.g. 2.11.0+cu130
    release: str  # 2.11.0
    reference: str
    is_reference: bool
    expected: bool  # the reference, or a release declared for this device (e.g. CUDA traces from a GPU box)

    @property
    def message(self) -> str:
        return f"recorded with torch {self.recorded}, not the reference {self.reference}"


def check_version(recorded: str, reference: str, declared: frozenset[str] | set[str] = frozenset()) -> VersionCheck:
    release = public_version(recorded)
    is_reference = release == public_version(reference)
    expected = is_reference or release in {public_version(version) for version in declared}
    return VersionCheck(recorded, release, reference, is_reference, expected)
