"""How an interface's hidden suite is judged, shared by every interface: the interface check first,
then each test, or `not_run` with the reason when an interface item it relies on is unmet or a
training run it needs crashed.

An interface supplies its expectations (`InterfaceNeeds`: what each item is, in a candidate's words,
and what relies on what) and its suite (test spec, check) pairs; `judge` does the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from app.engine.measurements import Measurements
from app.engine.shared.verdicts import NOT_RUN, Fail, NotApplicable, TestSpec, Verdict, probe

Check = Callable[[Measurements, Measurements], str]
Suite = Sequence[tuple[TestSpec, Check]]

# Runs whose crash leaves their tests without measurements, and what each is, for a candidate.
RUNS = {"training_run": "the tiny training run", "leak_probe": "the training run on random tokens"}


@dataclass(frozen=True)
class InterfaceNeeds:
    """What an interface expects of a candidate's code, item by item, and what relies on what."""

    name: str  # "gpt-v1"
    expected: Mapping[str, str]  # item -> what the interface expects, in the words a candidate reads
    implied: Mapping[str, tuple[str, ...]]  # item or run -> the items it relies on
    runs: Mapping[str, str] = field(default_factory=lambda: RUNS)

    def _expand(self, needs: tuple[str, ...]) -> list[str]:
        """Needs with what they rely on first: an unmet interface item explains more than a crash."""
        out: list[str] = []
        for need in needs:
            for item in [*self._expand(self.implied.get(need, ())), need]:
                if item not in out:
                    out.append(item)
        return out

    def blocked(self, candidate: Measurements) -> dict[str, str]:
        """need -> why tests relying on it cannot run (unmet interface items, crashed training runs)."""
        items = (candidate.readings("interface") or {}).get("items") or {}
        out = {name: f"the {self.name} interface expects {self.expected[name]}, but {item.get('found')}"
               for name, item in items.items() if name in self.expected and item.get("state") == "unmet"}
        for name, what in self.runs.items():
            run = candidate.readings(name)
            if run is not None and "exception" in run:
                out[name] = f"{what} stopped with {run['exception']}"
        return out

    def not_run_reason(self, needs: tuple[str, ...], blocked_needs: dict[str, str]) -> str | None:
        """The first reason a test with these needs cannot run, or None."""
        return next((blocked_needs[n] for n in self._expand(needs) if n in blocked_needs), None)

    def interface_met(self, c: Measurements, r: Measurements) -> str:
        """The check behind general.interface: every item the interface expects is there."""
        items = probe(c, "interface")["items"]
        unmet = [f"{self.expected[name]}, but {item['found']}" for name, item in items.items()
                 if item.get("state") == "unmet" and name in self.expected]
        if unmet:
            raise Fail(f"the code does not follow the {self.name} interface; it expects " + "; and ".join(unmet)
                       + ". Tests that rely on it were not run.")
        return f"the code follows the {self.name} interface"

    def training_completes(self, c: Measurements, r: Measurements) -> str:
        """The check behind training.completes: every run finished with measurements."""
        for name, what in self.runs.items():
            run = c.readings(name)
            if run is None:
                raise Fail(f"{what} produced no measurements")
            if "exception" in run:
                raise Fail(f"{what} stopped with {run['exception']}")
        return "the training runs complete"


def suite_for(suite: Suite, files: Sequence[str]) -> list[TestSpec]:
    """The tests that apply to a scenario with these candidate files."""
    has_train = "train.py" in files
    return [spec for spec, _ in suite if has_train or not spec.needs_train]


def judge(suite: Suite, needs: InterfaceNeeds, candidate: Measurements, reference: Measurements, *,
          files: Sequence[str]) -> list[Verdict]:
    """Judge every applicable test; a check's own crash on malformed measurements is a failure. A test
    whose needs are unmet (interface) or crashed (training runs) is not run, with the reason."""
    has_train = "train.py" in files
    blocked = needs.blocked(candidate)
    verdicts = []
    for spec, check in suite:
        if spec.needs_train and not has_train:
            continue
        reason = needs.not_run_reason(spec.needs, blocked)
        if reason is not None:
            verdicts.append(Verdict(spec.id, spec.component, False, f"not run: {reason}", False, spec.public,
                                    status=NOT_RUN, reason=reason))
            continue
        try:
            message, passed, applicable = check(candidate, reference), True, True
        except Fail as exc:
            message, passed, applicable = str(exc), False, True
        except NotApplicable as exc:
            message, passed, applicable = f"not applicable: {exc}", True, False
        except (KeyError, TypeError, ValueError, IndexError):
            message, passed, applicable = "the measurements for this test were incomplete", False, True
        verdicts.append(Verdict(spec.id, spec.component, passed, message, applicable, spec.public))
    return verdicts
