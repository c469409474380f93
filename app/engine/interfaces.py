"""The challenge interfaces a scenario can declare (`interface = "gpt-v1"` in scenario.toml), and
everything the rest of the app needs to know about each: the one seam between the app and a specific
interface. Outside app/engine/<interface>/ only this module names one.

An interface is a harness (probes that run in the sandbox and write result.json), checks that judge
its measurements against the solution's, and the contract a candidate's files follow (CONTRACTS.md
section 1 for gpt-v1, 1b for llama-v1, 1c for pipeline-v1). Another interface is one more entry in INTERFACES.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from app.engine.errors import PackageError
from app.engine.gpt_v1 import bundle as gpt_v1_bundle
from app.engine.gpt_v1 import checks as gpt_v1_checks
from app.engine.llama_v1 import bundle as llama_v1_bundle
from app.engine.llama_v1 import checks as llama_v1_checks
from app.engine.measurements import Measurements
from app.engine.pipeline_v1 import bundle as pipeline_v1_bundle
from app.engine.pipeline_v1 import checks as pipeline_v1_checks

# The verdict vocabulary every interface's checks share: a TestSpec per test, a Verdict per judged
# test, and its status (only FAILED is evidence of a bug, only PASSED of its absence). Defined in the
# interface-neutral app/engine/shared/; every interface's engine fingerprint covers it.
from app.engine.shared.verdicts import FAILED, NOT_APPLICABLE, NOT_RUN, PASSED, TestSpec, Verdict


class CheckRunner(Protocol):
    """run_checks(candidate, reference, *, files) -> one Verdict per applicable test."""

    def __call__(self, candidate: Measurements, reference: Measurements, *,
                 files: Sequence[str]) -> list[Verdict]: ...


__all__ = ["FAILED", "INTERFACES", "NOT_APPLICABLE", "NOT_RUN", "PASSED", "Interface", "Measurements", "TestSpec",
           "Verdict", "get_interface", "interface_label", "interface_names"]


@dataclass(frozen=True)
class Interface:
    """One challenge interface."""

    name: str
    # What people read: the label pages show ("GPT-2 style (gpt-v1)") and one line on what a model has.
    label: str
    description: str
    # The two names the entry file defines (CONTRACTS.md section 1, 1b: the config and the model in model.py;
    # 1c: collate and batches in data.py).
    entry_points: tuple[str, str]
    # What the harness writes as result.json's "schema"; anything else is a sandbox error.
    result_schema: str
    # The candidate files a scenario of this interface may list (scenario.toml: files).
    allowed_files: tuple[str, ...]
    # Test id -> its spec (component, public or hidden, title).
    specs: Mapping[str, TestSpec]
    check_runner: CheckRunner
    # The read-only directory handed to the sandbox (harness code + corpus), built once per fingerprint.
    harness_bundle_dir: Callable[[], Path]
    # Hash of everything that determines measurements and verdicts: a stored reference made by another
    # fingerprint is recomputed.
    engine_fingerprint: Callable[[], str]
    # The text the tiny training run learns (also the scratch console's corpus.txt).
    corpus_file: Path
    # The built-in scenario whose solution is the blank template authoring starts a new scenario from.
    template_scenario: str
    # Files of every scenario that are the scenario's own: shown, never edited or sent; grading always
    # uses the solution's copy (pipeline-v1's model.py).
    readonly_files: tuple[str, ...] = ()
    # The file whose two entry_points names tell `dojo check` which interface a directory is.
    entry_file: str = "model.py"

    def run_checks(self, candidate: Measurements, reference: Measurements, *,
                   files: Sequence[str]) -> list[Verdict]:
        """Judge the candidate's measurements against the reference's (the solution's)."""
        return self.check_runner(candidate, reference, files=files)

    def hidden_test_ids(self) -> frozenset[str]:
        return frozenset(test_id for test_id, spec in self.specs.items() if not spec.public)


GPT_V1 = Interface(
    name="gpt-v1",
    label="GPT-2 style (gpt-v1)",
    description="learned position embeddings, LayerNorm, GELU MLP, causal multi-head attention",
    entry_points=("GPTConfig", "GPT"),
    result_schema="dojo.gpt-v1.result/1",
    allowed_files=("model.py", "data.py", "train.py"),
    specs=gpt_v1_checks.SPECS,
    check_runner=gpt_v1_checks.run_checks,
    harness_bundle_dir=gpt_v1_bundle.harness_bundle_dir,
    engine_fingerprint=gpt_v1_bundle.engine_fingerprint,
    corpus_file=gpt_v1_bundle.CORPUS_FILE,
    template_scenario="warm-up",
)

# A llama-shaped decoder (CONTRACTS.md section 1b): rotary positions, RMSNorm, SwiGLU, grouped-query
# attention and a KV cache whose logits must equal the full forward's.
LLAMA_V1 = Interface(
    name="llama-v1",
    label="Llama style (llama-v1)",
    description="rotary positions, RMSNorm, SwiGLU, grouped-query attention, KV cache",
    entry_points=("ModelArgs", "Transformer"),
    result_schema="dojo.llama-v1.result/1",
    allowed_files=("model.py", "data.py", "train.py"),
    specs=llama_v1_checks.SPECS,
    check_runner=llama_v1_checks.run_checks,
    harness_bundle_dir=llama_v1_bundle.harness_bundle_dir,
    engine_fingerprint=llama_v1_bundle.engine_fingerprint,
    corpus_file=llama_v1_bundle.CORPUS_FILE,
    template_scenario="norm-and-gate",
)

# The training pipeline around a correct model (CONTRACTS.md section 1c): the candidate edits data.py and
# train.py; model.py is the scenario's, read-only. The grader owns the loop and calls their pieces.
PIPELINE_V1 = Interface(
    name="pipeline-v1",
    label="Training pipeline (pipeline-v1)",
    description="collate, split and batches; optimizer groups, schedule, accumulation, mixed precision, "
                "evaluation and checkpoints around a correct model",
    entry_points=("collate", "batches"),
    result_schema="dojo.pipeline-v1.result/1",
    allowed_files=("model.py", "data.py", "train.py"),
    specs=pipeline_v1_checks.SPECS,
    check_runner=pipeline_v1_checks.run_checks,
    harness_bundle_dir=pipeline_v1_bundle.harness_bundle_dir,
    engine_fingerprint=pipeline_v1_bundle.engine_fingerprint,
    corpus_file=pipeline_v1_bundle.CORPUS_FILE,
    template_scenario="padded-truths",
    readonly_files=("model.py",),
    entry_file="data.py",
)

INTERFACES: dict[str, Interface] = {GPT_V1.name: GPT_V1, LLAMA_V1.name: LLAMA_V1, PIPELINE_V1.name: PIPELINE_V1}
# Stored validation reports made before packages named their interface were all gpt-v1's.
DEFAULT_INTERFACE = GPT_V1.name


def interface_names() -> tuple[str, ...]:
    return tuple(INTERFACES)


def interface_label(name: str) -> str:
    """The label pages show for an interface name; an unknown name is shown as it is."""
    known = INTERFACES.get(name)
    return known.label if known is not None else name


def get_interface(name: str) -> Interface:
    """The interface called `name`; an unknown one is a package error naming the known ones."""
    try:
        return INTERFACES[name]
    except KeyError:
        raise PackageError(f"interface: {name!r} is not one of {', '.join(INTERFACES)}") from None


def engine_fingerprint(interface: str = DEFAULT_INTERFACE) -> str:
    """The running engine's fingerprint for one interface."""
    return get_interface(interface).engine_fingerprint()


def is_current_engine(fingerprint: object) -> bool:
    """Whether a stored report's fingerprint is the running engine's for some interface (a report is
    also tied to its package's content hash, which fixes the interface)."""
    return any(fingerprint == i.engine_fingerprint() for i in INTERFACES.values())
