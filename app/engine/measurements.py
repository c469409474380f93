"""What one harness run measured: its result.json, made into Measurements once (app.engine.harness_run)
and read by the interface's checks probe by probe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# One probe's readings: a JSON object whose fields the probe names (app/engine/<interface>/harness) and
# only the same interface's checks read, so it is typed there, by the check that reads each field.
ProbeReadings = Mapping[str, Any]


@dataclass(frozen=True)
class Measurements:
    """The probes of one run by name. `document` is result.json whole: a reference report stores it
    as it came, so a stored reference reads back to the same measurements."""

    schema: str | None
    # Probe name -> its readings as written (untrusted: candidate code runs in the harness's process).
    probes: Mapping[str, object]
    document: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Measurements:
        """From result.json (or a stored reference); a malformed `probes` reads as no probes at all."""
        if not isinstance(document, Mapping):
            raise TypeError("measurements must be a JSON object")
        probes = document.get("probes")
        schema = document.get("schema")
        return cls(schema=schema if isinstance(schema, str) else None,
                   probes=probes if isinstance(probes, Mapping) else {}, document=document)

    def readings(self, name: str) -> ProbeReadings | None:
        """One probe's readings, or None when the run wrote none (or something other than an object)."""
        readings = self.probes.get(name)
        return readings if isinstance(readings, Mapping) else None

    def to_json(self) -> Mapping[str, Any]:
        """result.json as it came (what a reference report stores)."""
        return self.document
