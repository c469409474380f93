"""Planting a bug by editing a copy of the solution: exact-text edits derived from the difference.

Each changed block becomes one edit whose `old` text occurs exactly once in the file (context lines
are added around it until it does), so the package format's rule holds by construction; the edits are
then checked against the solution and on top of the earlier bugs.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from app.engine.edits import Edit, apply_edits
from app.engine.errors import PackageError


@dataclass(frozen=True)
class DerivedEdit:
    """One edit with where it is (1-based line in the solution file) and whether it applies cleanly."""

    edit: Edit
    line: int
    problem: str | None = None


def _unique_block(lines: list[str], start: int, end: int, new: list[str]) -> tuple[int, int]:
    """Widen lines[start:end] with context until its text occurs once in the file (and is not empty)."""
    text = "".join(lines)
    while True:
        old = "".join(lines[start:end])
        if old and text.count(old) == 1:
            return start, end
        if start == 0 and end == len(lines):
            return start, end
        start, end = max(0, start - 1), min(len(lines), end + 1)


def derive_edits(solution: dict[str, str], edited: dict[str, str]) -> list[Edit]:
    """The edits that turn `solution` into `edited` (files compared by name; unknown names ignored)."""
    edits: list[Edit] = []
    for name in solution:
        before, after = solution[name], edited.get(name, solution[name]).replace("\r\n", "\n")
        if before == after:
            continue
        old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            start, end = _unique_block(old_lines, i1, i2, new_lines[j1:j2])
            new = "".join(old_lines[start:i1] + new_lines[j1:j2] + old_lines[i2:end])
            edits.append(Edit(name, "".join(old_lines[start:end]), new))
    return edits


def check_edits(solution: dict[str, str], starter_so_far: dict[str, str], edits: list[Edit]) -> list[DerivedEdit]:
    """Each edit with its line and a problem when it does not apply exactly once (alone or on the starter)."""
    out = []
    for edit in edits:
        line = solution[edit.file][: solution[edit.file].find(edit.old)].count("\n") + 1
        problem = None
        for files, where in ((solution, "the solution"), (starter_so_far, "the solution with the earlier bugs")):
            count = files[edit.file].count(edit.old)
            if count != 1:
                problem = (f"the changed text occurs {count} times in {where} ({edit.file}); it must occur "
                           "exactly once" + (" — it overlaps an earlier bug's edit" if count == 0 else ""))
                break
        out.append(DerivedEdit(edit=edit, line=line, problem=problem))
    return out


def applies(solution: dict[str, str], edits: list[Edit]) -> bool:
    """True when the edits reproduce exactly what the admin edited."""
    try:
        apply_edits(solution, edits, where="bug")
    except PackageError:
        return False
    return True


# Templates for common kinds, per challenge interface: (file, line pattern, replacement) proposing the
# edit at the right line of that interface's solutions. A kind whose bug needs lines moved (llama-v1's
# cache-after-repeat-kv) has none: the admin edits the copy of the solution by hand.
Template = tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]]
GPT_V1_TEMPLATES: dict[str, Template] = {
    "mask-future-leak": ("model.py", re.compile(r"torch\.tril\((?P<args>.*)\)(?P<rest>\s*)$"),
                         lambda m: f"torch.tril({m['args']}, diagonal=1){m['rest']}"),
    "mask-missing": ("model.py", re.compile(r"^(?P<indent>\s*)(?P<line>att = att\.masked_fill\(.*)$"),
                     lambda m: f"{m['indent']}# {m['line']}"),
    "softmax-wrong-dim": ("model.py", re.compile(r"(?P<head>att = F\.softmax\(att, dim=)-1(?P<tail>\))"),
                          lambda m: f"{m['head']}-2{m['tail']}"),
    "attn-scale-wrong": ("model.py", re.compile(r"math\.sqrt\(k\.size\(-1\)\)"), lambda m: "math.sqrt(C)"),
    "pos-not-added": ("model.py", re.compile(r"tok_emb \+ pos_emb"), lambda m: "tok_emb"),
    "label-no-shift": ("data.py", re.compile(r"data\[i \+ 1 : i \+ 1 \+ block_size\]"),
                       lambda m: "data[i : i + block_size]"),
    "mlp-no-nonlinearity": ("model.py", re.compile(r"self\.gelu\((?P<inner>self\.c_fc\(x\))\)"),
                            lambda m: m["inner"]),
}
LLAMA_V1_TEMPLATES: dict[str, Template] = {
    "rmsnorm-wrong": ("model.py", re.compile(r"x\.pow\(2\)\.mean\(dim=-1"), lambda m: "x.pow(2).mean(dim=1"),
    "rmsnorm-eps-wrong": ("model.py", re.compile(r"\.mean\(dim=-1, keepdim=True\) \+ self\.eps\)"),
                          lambda m: ".mean(dim=-1, keepdim=True))"),
    "rmsnorm-gain-wrong": ("model.py", re.compile(r"(?P<norm>\+ self\.eps\)) \* self\.weight"), lambda m: m["norm"]),
    "swiglu-gate-wrong": ("model.py", re.compile(r"F\.silu\(self\.w1\(x\)\) \* self\.w3\(x\)"),
                          lambda m: "F.silu(self.w1(x))"),
    "rope-frequencies-wrong": ("model.py", re.compile(
        r"torch\.arange\(0, head_dim, 2, dtype=torch\.float64\) / head_dim"),
        lambda m: "torch.arange(0, head_dim // 2, dtype=torch.float64) / head_dim"),
    "rope-on-values": ("model.py", re.compile(
        r"v = self\.wv\(x\)\.view\(B, T, self\.n_kv_heads, self\.head_dim\)\.transpose\(1, 2\)"),
        lambda m: "v = apply_rope(self.wv(x).view(B, T, self.n_kv_heads, self.head_dim), rot).transpose(1, 2)"),
    "rope-pairs-mixed": ("model.py", re.compile(r"x\.reshape\(\*x\.shape\[:-1\], -1, 2\)"),
                         lambda m: "x.reshape(*x.shape[:-1], 2, -1).transpose(-1, -2).contiguous()"),
    "rope-ignores-offset": ("model.py", re.compile(r"self\.rope\[start_pos : start_pos \+ T\]"),
                            lambda m: "self.rope[:T]"),
    "sdpa-causal-in-decode": ("model.py", re.compile(r"(?P<call>scaled_dot_product_attention\(.*)attn_mask=mask"),
                              lambda m: f"{m['call']}is_causal=True"),
    "attn-scale-wrong": ("model.py", re.compile(r"(?P<call>scaled_dot_product_attention\(.*attn_mask=mask),"),
                         lambda m: f"{m['call']}, scale=C ** -0.5,"),
    "cache-write-wrong": ("model.py", re.compile(
        r"^(?P<indent>\s*)self\.keys\[layer\], self\.values\[layer\] = k, v$"),
                          lambda m: f"{m['indent']}if self.keys[layer] is None:\n"
                                    f"{m['indent']}    self.keys[layer], self.values[layer] = k, v"),
    "repeat-kv-wrong-axis": ("model.py", re.compile(r"x\[:, :, None, :, :\]\.expand\(B, n_kv, n_rep, T, hd\)"),
                             lambda m: "x[:, :, :, None, :].expand(B, n_kv, T, n_rep, hd)"),
    "top-p-off-by-one": ("model.py", re.compile(r"sorted_probs\.cumsum\(dim=-1\) - sorted_probs >= top_p"),
                         lambda m: "sorted_probs.cumsum(dim=-1) > top_p"),
    "grad-accum-token-mean": ("train.py", re.compile(r"share = int\(\(y != -1\)\.sum\(\)\) / n_tokens"),
                              lambda m: "share = 1 / len(micro_batches)"),
    "cosine-schedule-wrong": ("train.py", re.compile(
        r"progress = \(step - warmup_steps\) / \(max_steps - warmup_steps\)"),
        lambda m: "progress = (step - warmup_steps) / max_steps"),
}
# pipeline-v1: the bugs live in data.py and train.py (model.py is the scenario's, read-only). A replacement
# of "" empties the line (a deleted statement). Clipping in the wrong place and a validation mean of batch
# means move a line or change two together: their patterns span lines (see propose).
_IGNORE_TOKENS = '(mb["labels"] != IGNORE_INDEX).sum()'
PIPELINE_V1_TEMPLATES: dict[str, Template] = {
    "pad-in-loss": ("data.py", re.compile(r"^(?P<indent>\s*)labels\[:, :-1\]\[attention_mask\[:, 1:\] == 0\] = "
                                          r"(?P<ignore>\w+)\s*$"),
                    lambda m: f"{m['indent']}labels[:, -1] = {m['ignore']}"),
    "eos-masked-as-pad": ("data.py", re.compile(r"^(?P<indent>\s*)labels\[:, :-1\]\[attention_mask\[:, 1:\] == 0\] = "
                                                r"(?P<ignore>\w+)\s*$"),
                          lambda m: f"{m['indent']}labels[labels == pad_id] = {m['ignore']}"),
    "collate-shift-wrong": ("data.py", re.compile(r"labels\[:, :-1\] = input_ids\[:, 1:\]$"),
                            lambda m: "labels[:, :-2] = input_ids[:, 2:]"),
    "split-leaks": ("data.py", re.compile(r"^(?P<head>\s*train = )\[documents\[i\] for i in order\[n_val:\]\]$"),
                    lambda m: f"{m['head']}documents[n_val:]"),
    "shuffle-same-every-epoch": ("data.py", re.compile(r"(?P<call>manual_seed\(|Random\()[^()]*\bepoch\b[^()]*\)"),
                                 lambda m: f"{m['call']}seed)"),
    "epoch-drops-examples": ("data.py", re.compile(r"range\(0, len\((?P<seq>\w+)\), batch_size\)"),
                             lambda m: f"range(0, len({m['seq']}) - batch_size + 1, batch_size)"),
    "decay-on-vectors": ("train.py", re.compile(r'(?P<group>\{"params": no_decay, "weight_decay": )0\.0\}'),
                         lambda m: f"{m['group']}weight_decay}}"),
    "decay-not-decoupled": ("train.py", re.compile(r"torch\.optim\.AdamW\("), lambda m: "torch.optim.Adam("),
    "params-missing-from-optimizer": ("train.py", re.compile(
        r'^(?P<head>\s*groups = \[\{"params": decay, [^}]*\}), \{"params": no_decay, [^}]*\}\]$'),
        lambda m: f"{m['head']}]"),
    "warmup-skips-first": ("train.py", re.compile(r"^(?P<indent>\s*)(?P<line>if step < warmup_steps:)$"),
                           lambda m: f"{m['indent']}step += 1\n{m['indent']}{m['line']}"),
    "schedule-horizon-wrong": ("train.py", re.compile(r"(?P<head>ratio = \(step - warmup_steps\) / )"
                                                      r"\(max_steps - warmup_steps\)"),
                               lambda m: f"{m['head']}max_steps"),
    "accum-micro-batch-mean": ("train.py", re.compile(r"(?P<head>loss = loss_sum\(model, mb, amp_dtype\)) / n_tokens$"),
                               lambda m: f"{m['head']} / {_IGNORE_TOKENS} / len(micro_batches)"),
    "accum-not-divided": ("train.py", re.compile(r"(?P<head>loss = loss_sum\(model, mb, amp_dtype\)) / n_tokens$"),
                          lambda m: f"{m['head']} / {_IGNORE_TOKENS}"),
    "accum-zero-grad-inside": ("train.py", re.compile(r"^(?P<indent>\s*)(?P<line>for mb in micro_batches:)$"),
                               lambda m: f"{m['indent']}{m['line']}\n"
                                         f"{m['indent']}    optimizer.zero_grad(set_to_none=True)"),
    "amp-clip-before-unscale": ("train.py", re.compile(r"^(?P<indent>\s*)scaler\.unscale_\((?P<opt>\w+)\).*$"),
                                lambda m: f"{m['indent']}torch.nn.utils.clip_grad_norm_(model.parameters(), "
                                          f"grad_clip)\n{m['indent']}scaler.unscale_({m['opt']})"),
    "amp-step-bypasses-scaler": ("train.py", re.compile(r"scaler\.step\((?P<opt>\w+)\).*$"),
                                 lambda m: f"{m['opt']}.step()"),
    "eval-dropout-on": ("train.py", re.compile(r"^\s*model\.eval\(\)\s*$"), lambda m: ""),
    "eval-train-not-restored": ("train.py", re.compile(r"^\s*model\.train\([^()]*\)\s*$"), lambda m: ""),
    "eval-builds-graph": ("train.py", re.compile(r"^@torch\.(no_grad|inference_mode)\(\)\s*$"), lambda m: ""),
    "resume-optimizer-state-lost": ("train.py", re.compile(r"^\s*optimizer\.load_state_dict\(.*\)\s*$"),
                                    lambda m: ""),
    "resume-step-off-by-one": ("train.py", re.compile(r'return (?P<step>state\["step"\])$'),
                               lambda m: f"return {m['step']} + 1"),
    "resume-rng-lost": ("train.py", re.compile(r"^\s*torch\.set_rng_state\(.*\)\s*$"), lambda m: ""),
    # the clip moves from before the optimizer's step to just after it (after an if/else that steps through
    # a scaler otherwise), at its own indentation
    "clip-wrong-place": ("train.py", re.compile(
        r"^(?P<clip>[ \t]*torch\.nn\.utils\.clip_grad_norm_\([^\n]*\)\n)"
        r"(?P<step>(?:[^\n]*\n)*?[ \t]*optimizer\.step\(\)[^\n]*\n)", re.MULTILINE),
        lambda m: m["step"] + m["clip"]),
    # each batch's mean loss summed, divided by the number of batches
    "eval-mean-of-means": ("train.py", re.compile(
        r"^(?P<indent>[ \t]*)total \+= (?P<loss>float\(loss_sum\([^\n]*\)\))\n"
        r"(?P=indent)count \+= (?P<count>int\(\(batch\[\"labels\"\] != \w+\)\.sum\(\)\))\n", re.MULTILINE),
        lambda m: f"{m['indent']}total += {m['loss']} / {m['count']}\n{m['indent']}count += 1\n"),
}
TEMPLATES: dict[str, dict[str, Template]] = {"gpt-v1": GPT_V1_TEMPLATES, "llama-v1": LLAMA_V1_TEMPLATES,
                                             "pipeline-v1": PIPELINE_V1_TEMPLATES}


def templates_for(interface: str) -> list[str]:
    """The kinds with a template for this interface's solutions, sorted."""
    return sorted(TEMPLATES.get(interface, {}))


def propose(kind: str, solution: dict[str, str], interface: str = "gpt-v1") -> tuple[dict[str, str], str] | None:
    """The solution with the kind's template (for this interface) applied at its first matching line, and
    where; None if none fits."""
    template = TEMPLATES.get(interface, {}).get(kind)
    if template is None or template[0] not in solution:
        return None
    name, pattern, replace = template
    if pattern.flags & re.MULTILINE:  # a pattern over several lines: matched in the whole file
        match = pattern.search(solution[name])
        if match is None:
            return None
        text = solution[name][:match.start()] + replace(match) + solution[name][match.end():]
        return {**solution, name: text}, f"{name} line {solution[name].count(chr(10), 0, match.start()) + 1}"
    lines = solution[name].splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        body = line.rstrip("\n")
        if pattern.search(body):
            lines[number - 1] = pattern.sub(replace, body, count=1) + line[len(body):]
            return {**solution, name: "".join(lines)}, f"{name} line {number}"
    return None


# Words in a comment that give a planted bug away: the starter must not tell the candidate where to look.
TELLING_WORDS = re.compile(r"\b(bug|buggy|planted|fixme|todo|xxx|hack|wrong|broken|incorrect|should be|"
                           r"off[- ]by[- ]one|intentional(ly)?|deliberate(ly)?)\b", re.IGNORECASE)


def _comments(text: str) -> list[str]:
    return [line.split("#", 1)[1].strip() for line in text.splitlines() if "#" in line]


def comment_warnings(solution: dict[str, str], bugs: list[tuple[str, str, str, list[Edit]]]) -> list[str]:
    """A warning for each comment a bug's planted text carries that names the bug: a word that gives a bug
    away (bug, wrong, should be, TODO …), or the bug's id or kind. `bugs`: (id, kind, title, edits).
    Comments the solution already has at that place are the author's, and pass; so do comments that
    describe the planted code in the domain's words (a cover story is the author's choice)."""
    out = []
    for bug_id, kind, _title, edits in bugs:
        for edit in edits:
            kept = set(_comments(edit.old))
            for comment in _comments(edit.new):
                if comment in kept:
                    continue
                lowered = comment.lower()
                telling = TELLING_WORDS.search(comment)
                why = (f"its id {bug_id}" if bug_id.lower() in lowered
                       else f"its kind {kind}" if kind.lower() in lowered
                       else f"“{telling[0]}”" if telling else None)
                if why:
                    out.append(f"bug {bug_id}: the planted text in {edit.file} leaves the comment “# {comment}”, "
                               f"which names the bug ({why}); candidates read it in the starter")
    return out
