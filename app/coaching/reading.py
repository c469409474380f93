"""Reading a candidate's note: sentences, negation, claims, methods, components and bug kinds.

Deliberately small and explainable: every finding records the candidate's words that produced it,
so a reviewer can see why the coach said what it said (`NoteReading.explain()`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.coaching import lexicon

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+|;\s+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_CLAUSE_BREAK = re.compile(r",|:|\bbut\b|\bthough\b|\balthough\b|\bhowever\b|\bwhereas\b|\bexcept\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")
_WORD = re.compile(r"[a-z0-9]+")
_TOKEN = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")  # words and single punctuation marks
_IGNORED = re.compile("|".join(rf"\b{re.escape(p)}\b" for p in lexicon.IGNORED))
_PRONOUNS = re.compile(r"\b(it|that|this|them|those|these|both|they)\b")


@dataclass(frozen=True)
class Mention:
    """One finding: what kind of thing, its canonical value, the words that matched and where."""

    what: str  # claim | method | component | kind | hedge | experience | everything
    value: str
    phrase: str
    sentence: int
    negated: bool = False


@dataclass(frozen=True)
class Claim:
    """A claim ("caught", "fixed", "verified") and what it is about."""

    verb: str  # found | fixed | verified
    phrase: str
    sentence: int
    negated: bool
    kinds: tuple[str, ...]
    components: tuple[str, ...]
    everything: bool

    @property
    def about_something(self) -> bool:
        return bool(self.kinds or self.components or self.everything)


@dataclass(frozen=True)
class NoteReading:
    """What one note says, with the evidence for each finding."""

    question_id: str
    text: str
    sentences: tuple[str, ...]
    mentions: tuple[Mention, ...]
    claims: tuple[Claim, ...]
    numbers: tuple[str, ...]
    words: int
    vague_reasons: tuple[str, ...] = field(default=())

    def values(self, what: str, *, negated: bool = False) -> tuple[str, ...]:
        """Distinct values of one kind of mention, in order of appearance."""
        seen: dict[str, None] = {}
        for m in self.mentions:
            if m.what == what and m.negated == negated:
                seen.setdefault(m.value, None)
        return tuple(seen)

    @property
    def methods(self) -> tuple[str, ...]:
        return self.values("method")

    @property
    def skipped_methods(self) -> tuple[str, ...]:
        """Methods the note says were not used ("I didn't overfit a batch")."""
        return tuple(m for m in self.values("method", negated=True) if m not in self.methods)

    @property
    def components(self) -> tuple[str, ...]:
        return self.values("component")

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.values("kind")

    @property
    def hedges(self) -> tuple[str, ...]:
        return tuple(m.phrase for m in self.mentions if m.what == "hedge")

    @property
    def experience(self) -> tuple[str, ...]:
        """Words that offer experience instead of evidence ("burned by that before")."""
        return tuple(m.phrase for m in self.mentions if m.what == "experience")

    @property
    def vague(self) -> bool:
        return bool(self.vague_reasons)

    def phrase_of(self, what: str, value: str) -> str:
        """The candidate's own words for a value (the first time they used them)."""
        for m in self.mentions:
            if m.what == what and m.value == value:
                return m.phrase
        return value

    def explain(self) -> list[str]:
        """One line per finding, quoting the words that produced it."""
        lines = [f"{m.what} {m.value}{' (negated)' if m.negated else ''}: \"{m.phrase}\" in sentence {m.sentence + 1}"
                 for m in self.mentions]
        lines += [f"claim {c.verb}{' (negated)' if c.negated else ''} about "
                  f"{', '.join(c.kinds + c.components) or ('everything' if c.everything else 'nothing named')}"
                  for c in self.claims]
        lines += [f"vague: {reason}" for reason in self.vague_reasons]
        return lines


def normalise(text: str) -> str:
    """Lower case, straight apostrophes dropped, hyphens and underscores between words read as spaces."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"(?<=[a-z])'(?=[a-z])", "", text)
    text = re.sub(r"(?<=[a-z0-9])[-_](?=[a-z0-9])", " ", text)
    return re.sub(r"[ \t]+", " ", text)


def _phrase_regex(phrase: str) -> str:
    """Whole-word regex of a lexicon phrase; a trailing * continues the last word."""
    prefix = phrase.endswith("*")
    tokens = _TOKEN.findall(normalise(phrase.rstrip("*")))
    body = ""
    for i, token in enumerate(tokens):
        if i:
            loose = not token[0].isalnum() or not tokens[i - 1][-1].isalnum()
            body += r"\s*" if loose else r"\s+"
        body += re.escape(token)
    start = r"(?<![a-z0-9])" if tokens[0][0].isalnum() else ""
    end = r"[a-z0-9]*" if prefix else (r"(?![a-z0-9])" if tokens[-1][-1].isalnum() else "")
    return start + body + end


class Matcher:
    """The phrases of one lexicon table, indexed by how their first word starts, so a sentence is only
    searched for phrases whose first word could be in it. A longer match hides shorter ones inside it."""

    def __init__(self, table: dict[str, tuple[str, ...]]) -> None:
        self.index: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        for value, phrases in table.items():
            for phrase in phrases:
                first = _TOKEN.findall(normalise(phrase.rstrip("*")))[0]
                self.index.setdefault(first[:3], []).append((value, re.compile(_phrase_regex(phrase))))

    def find(self, sentence: str) -> list[tuple[int, int, str, str]]:
        """(start, end, value, the words matched) in order."""
        keys = {token[:3] for token in _TOKEN.findall(sentence)}
        hits = [(m.start(), m.end(), value, m.group(0))
                for key in keys & self.index.keys() for value, pattern in self.index[key]
                for m in pattern.finditer(sentence)]
        hits.sort(key=lambda h: (h[0] - h[1], h[0]))
        kept: list[tuple[int, int, str, str]] = []
        for hit in hits:
            if all(hit[1] <= k[0] or hit[0] >= k[1] for k in kept):
                kept.append(hit)
        return sorted(kept)


KINDS = Matcher(lexicon.KINDS)
COMPONENTS = Matcher(lexicon.COMPONENTS)
METHODS = Matcher(lexicon.METHODS)
CLAIMS = Matcher(lexicon.CLAIMS)
EVERYTHING = Matcher({"everything": lexicon.EVERYTHING})
HEDGES = Matcher({"hedge": lexicon.HEDGES, "experience": lexicon.EXPERIENCE})
NEGATORS = Matcher({"not": lexicon.NEGATORS})


def _negated(sentence: str, start: int) -> bool:
    """A negator among the few words before `start`, inside the same clause."""
    clause = _CLAUSE_BREAK.split(sentence[:start])[-1]
    window = " ".join(_WORD.findall(clause)[-lexicon.NEGATION_WINDOW:])
    return bool(NEGATORS.find(window))


def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences (and list items) of a note, trimmed, empty ones dropped."""
    parts = (_BULLET.sub("", s).strip() for s in _SENTENCE_END.split(text) if s)
    return tuple(s for s in parts if s.strip(" .!?"))


def read_note(question_id: str, text: str) -> NoteReading:
    """Analyse one note."""
    sentences = split_sentences(text)
    mentions: list[Mention] = []
    claims: list[Claim] = []
    previous_targets: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    for index, raw in enumerate(sentences):
        sentence = normalise(raw)
        kinds = [(s, v, p) for s, _e, v, p in KINDS.find(sentence)]
        named = _IGNORED.sub(lambda m: " " * len(m.group(0)), sentence)  # keep offsets for negation windows
        components = [(s, v, p) for s, _e, v, p in COMPONENTS.find(named)]
        everything = [(s, v, p) for s, _e, v, p in EVERYTHING.find(sentence)]
        for what, found in (("kind", kinds), ("component", components), ("everything", everything)):
            # Negation belongs to the claim or method ("I didn't check the mask"), not to the thing named.
            mentions += [Mention(what, value, phrase, index) for _s, value, phrase in found]
        for s, _e, value, phrase in METHODS.find(sentence):
            mentions.append(Mention("method", value, phrase, index, _negated(sentence, s)))
        for _s, _e, value, phrase in HEDGES.find(sentence):
            mentions.append(Mention(value, value, phrase, index))
        targets = (tuple(dict.fromkeys(v for _s, v, _p in kinds)), tuple(dict.fromkeys(v for _s, v, _p in components)))
        claims_found = CLAIMS.find(sentence)
        # "There was a label shift. I fixed it." and "top-k was broken; verified k tokens remain." refer back.
        opens_with_claim = bool(claims_found) and len(_WORD.findall(sentence[:claims_found[0][0]])) <= 1
        if not any(targets) and (_PRONOUNS.search(sentence) or opens_with_claim):
            targets = previous_targets
        for s, _e, verb, phrase in claims_found:
            negated = _negated(sentence, s)
            mentions.append(Mention("claim", verb, phrase, index, negated))
            claims.append(Claim(verb=verb, phrase=phrase, sentence=index, negated=negated, kinds=targets[0],
                                components=targets[1], everything=bool(everything)))
        if any(targets):
            previous_targets = targets
    numbers = tuple(_NUMBER.findall(text))
    words = len(_WORD.findall(normalise(text)))
    reading = NoteReading(question_id=question_id, text=text, sentences=sentences, mentions=tuple(mentions),
                          claims=tuple(claims), numbers=numbers, words=words)
    object.__setattr__(reading, "vague_reasons", _vague_reasons(reading))
    return reading


def _vague_reasons(reading: NoteReading) -> tuple[str, ...]:
    reasons = []
    if reading.words < 6:
        reasons.append("very short")
    if not reading.methods and not reading.kinds and not reading.components:
        reasons.append("names no method, component or bug")
    if reading.hedges and not reading.numbers:
        reasons.append("hedges (" + ", ".join(f'"{h}"' for h in reading.hedges[:3]) + ") without a number")
    if reading.experience and not reading.numbers and not reading.methods:
        reasons.append(f'experience ("{reading.experience[0]}") in place of a check')
    return tuple(reasons)
