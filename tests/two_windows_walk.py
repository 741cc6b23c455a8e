"""A seeded random walk of two windows on one prompt file with several fields (W19), at the document level: two
:class:`PromptDocument` on one path, each with a small stand-in for what the window's session keeps per field and
how ``gui/actions/prompt_actions.py`` wires it to the document (the first field's taught set, kept across prompts;
each further field's taught set, taken from the prompt put in use; the document's ``merged``, ``forgotten`` and
``fields_moved`` answered as the window answers them).

Each step is one window's: a teach or a forget in one of its fields, an edit of the prompt's structure (a field
renamed, moved, added or removed, a label renamed) saved at once or left unsaved, a Save of the edit left, or its
background write landing (``flush``; the timers never fire, so a seed replays the same walk). A conflict is answered
*Keep mine*, *Load theirs* or *Cancel* at random.

Every field has its own letter (``q``, ``p``, then ``c``, ``d``…), the first letter of each of its labels and of
each ticket text taught in it, so the file alone says where a ticket belongs. The invariant (:func:`check`): no
field of the file holds a ticket of another field's letter, and after a final flush of both windows every ticket
either window taught in a field that no Save removed, and did not forget, is in the file's field of that letter.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field, replace
from pathlib import Path

from triage_gui.engine.prompt import Field, Label, PromptConflict, PromptProfile
from triage_gui.session.prompt_document import PromptDocument

NEVER = 10_000.0  # the documents' write delays: nothing is written but by a step (flush, Save)

# What the walk knows fails, and does not do unless asked (``any_label``): window B renamed every label of the
# priority, one Save or several, and its name; window A, not having read the file since, teaches the priority:
# A's write finds no field of the file with its name or a label of it, takes the file's prompt (the priority-1
# with new labels) and drops A's priority tickets as those of a field B removed. Telling the two apart needs an
# identity of a field that outlives its name and labels, which the prompt file does not keep (W19's report).
KNOWN = "a field all of whose labels and name one window renamed is lost to the other window's stale teaching"


def field_of(tag: str, name: str) -> Field:
    return Field(name, f"Which {name}?", [Label(f"{tag}a", "one"), Label(f"{tag}b", "other")])


def tag_of(f: Field) -> str:
    return f.labels[0].name[0]


@dataclass
class Window:
    """One window: its document and what its session keeps per field (see the module docstring)."""

    doc: PromptDocument
    log: list[str]
    first: dict[str, str] = field(default_factory=dict)  # the session's first field's taught set
    names: list[str] = field(default_factory=list)  # the session's fields' names ([] for one field)
    more: list[dict[str, str]] = field(default_factory=list)  # each further field's taught set
    in_use: PromptProfile | None = None
    renames: list[tuple[str, str]] = field(default_factory=list)  # label renames typed since the last Save

    def __post_init__(self) -> None:
        self.doc.merged.connect(self._merged)
        self.doc.forgotten.connect(self._forgotten)
        self.doc.fields_moved.connect(self._fields_moved)

    def start(self) -> None:
        saved, _, _ = self.doc.start()
        self.first = {e.text: e.label for e in saved.taught}
        self.set_prompt(saved)

    # ------------------------------------------------------------- the session's part

    def set_prompt(self, profile: PromptProfile) -> None:
        self.in_use = profile
        several = len(profile.fields) > 1
        self.names = [f.name for f in profile.fields] if several else []
        self.more = [{e.text.strip(): e.label for e in f.taught} for f in profile.more_fields] if several else []

    def keep_taught(self) -> None:
        self.doc.keep_taught(list(self.first.items()))
        self.doc.keep_field_taught([list(m.items()) for m in self.more], self.names)

    def teach(self, index: int, text: str, label: str | None) -> None:
        taught = self.first if index == 0 else self.more[index - 1]
        if label is None:
            taught.pop(text, None)
        else:
            taught[text] = label
        self.keep_taught()

    def _relabel(self, index: int, mapping: dict[str, str]) -> None:
        taught = self.first if index == 0 else self.more[index - 1]
        taught.update({t: mapping[label] for t, label in taught.items() if label in mapping})
        self.keep_taught()

    def follow_renames(self, profile: PromptProfile) -> dict[int, dict[str, str]]:
        assert self.in_use is not None
        names, renamed = self.names or [profile.fields[0].name], {}
        for i, name in enumerate(names):
            at = next((j for j, f in enumerate(profile.fields) if f.name == name), None)
            at = i if at is None and len(profile.fields) == len(names) else at
            after = [] if at is None else profile.fields[at].label_names
            before = self.in_use.fields[i].label_names if i < len(self.in_use.fields) else []
            mapping = {}
            for old, new in self.renames:
                for k, v in list(mapping.items()):
                    if v == old:
                        mapping[k] = new
                if old in before:
                    mapping[old] = new
            mapping = {o: n for o, n in mapping.items() if n in after and o != n}
            if mapping:
                renamed[i] = mapping
                self._relabel(i, mapping)
        return renamed

    def take_back_renames(self, renamed: dict[int, dict[str, str]]) -> None:
        for i, mapping in renamed.items():
            self._relabel(i, {new: old for old, new in mapping.items()})

    # ------------------------------------------------------------- the window's answers to the document

    def _merged(self, theirs: list[tuple[str, str]], prompt_changed: bool) -> None:
        if prompt_changed and not self.doc.dirty:
            self.set_prompt(self.doc.saved)
            self.renames = []
        if theirs:
            self.first.update({t.strip(): label for t, label in theirs})
            self.keep_taught()

    def _forgotten(self, held: list[tuple[str, str]]) -> None:
        for text, label in held:
            if self.first.get(text) == label:
                del self.first[text]
        self.keep_taught()

    def _fields_moved(self, order: list[int | None]) -> None:
        self.first = {e.text.strip(): e.label for e in self.doc.saved.taught}

    # ------------------------------------------------------------- the lead's steps

    @property
    def editor(self) -> PromptProfile:
        return self.doc.draft or replace(self.doc.saved, taught=[], history=[], checks=[], more_fields=[
            replace(f, taught=[], history=[], checks=[]) for f in self.doc.saved.more_fields
        ])  # fmt: skip

    def edit(self, profile: PromptProfile) -> None:
        self.doc.edit(profile)

    def save(self, answer: str) -> None:
        profile = self.editor
        renamed = self.follow_renames(profile)
        try:
            self.doc.save(profile, list(self.first.items()))
        except PromptConflict as exc:
            self.take_back_renames(renamed)
            self.log.append(f"  conflict: {answer}")
            if answer == "theirs":
                self.keep_taught()
                self.doc.flush()
                read = self.doc.read(exc.path)
                stranded = self.doc.stranded or []
                self.doc.adopt(exc.path, read)
                self.first = {e.text.strip(): e.label for e in [*read.taught]}
                self.first.update(dict(stranded))
                self.renames = []
                self.set_prompt(self.doc.saved)
                return
            if answer != "mine":
                return
            renamed = self.follow_renames(profile)
            self.doc.save(profile, list(self.first.items()), force=True)
        self.renames = []
        self.set_prompt(self.doc.saved)


@dataclass
class Walk:
    """The two windows, the tickets taught (text -> letter, while taught) and the letters a Save removed."""

    path: Path
    rng: random.Random
    log: list[str] = field(default_factory=list)
    taught: dict[str, str] = field(default_factory=dict)  # a ticket taught and not forgotten -> its field's letter
    removed: set[str] = field(default_factory=set)  # letters of fields some Save removed: their tickets may go
    tags: list[str] = field(default_factory=lambda: list("cdefghijkmnrstuvwxyz"))
    names: int = 0
    tickets: int = 0
    windows: list[Window] = field(default_factory=list)
    any_label: bool = False  # a label renamed may be either of a field's (see KNOWN)

    def step(self) -> None:
        rng = self.rng
        w = rng.choice(self.windows)
        who = "AB"[self.windows.index(w)]
        kind = rng.choices(["teach", "forget", "flush", "structure", "save"], [6, 1, 3, 3, 1])[0]
        if kind == "teach" and w.in_use is not None:
            i = rng.randrange(len(w.in_use.fields))
            f = w.in_use.fields[i]
            if rng.random() < 0.25 and (mine := [t for t, g in self.taught.items() if g == tag_of(f)]):
                text = rng.choice(mine)  # taught again, maybe with the other label
            else:
                self.tickets += 1
                text = f"{tag_of(f)} ticket {self.tickets}"
            held = (w.first if i == 0 else w.more[i - 1]).get(text)
            label = rng.choice([x for x in f.label_names if x != held])  # a change of this window's set
            self.log.append(f"{who}: teach field {i} ({f.name}) {text!r} {label!r}")
            w.teach(i, text, label)
            self.taught[text] = tag_of(f)
        elif kind == "forget":
            sets = [w.first, *w.more]
            i = rng.randrange(len(sets))
            if sets[i]:
                text = rng.choice(sorted(sets[i]))
                self.log.append(f"{who}: forget field {i} {text!r}")
                w.teach(i, text, None)
                self.taught.pop(text, None)
        elif kind == "flush":
            self.log.append(f"{who}: its write lands")
            w.doc.flush()
        elif kind == "structure":
            self.structure(w, who, save=rng.random() < 0.75)
        elif kind == "save" and w.doc.dirty:
            self.log.append(f"{who}: Save")
            w.save(rng.choice(["mine", "mine", "theirs", "cancel"]))

    def structure(self, w: Window, who: str, save: bool) -> None:
        rng = self.rng
        profile = w.editor
        fields = [replace(f) for f in profile.fields]
        ops = (
            ["rename", "move", "label"] + (["add"] if len(fields) < 4 else []) + (["remove"] if len(fields) > 2 else [])
        )
        op = rng.choice(ops)
        j = rng.randrange(len(fields))
        if op == "rename":
            self.names += 1
            new = f"{fields[j].name.split('-')[0]}-{self.names}"
            what = f"rename field {fields[j].name!r} -> {new!r}"
            fields[j] = replace(fields[j], name=new)
        elif op == "move":
            k = j + rng.choice([-1, 1])
            if not 0 <= k < len(fields):
                k = j - 1 if j else 1
            what = f"move field {fields[j].name!r} to {k}"
            fields.insert(k, fields.pop(j))
        elif op == "label":
            labels = list(fields[j].labels)
            # The second label, unless asked: a field whose every label (and name) was renamed in one window is known
            # by nothing in the other (KNOWN); its tickets taught there, stale, are lost at the next write.
            m = rng.randrange(len(labels)) if self.any_label else 1
            old = labels[m].name
            new = old + "x" if len(old) < 12 else old[:2]
            labels[m] = Label(new, labels[m].description)
            what = f"rename label {old!r} -> {new!r} in {fields[j].name!r}"
            fields[j] = replace(fields[j], labels=labels)
            w.renames.append((old, new))
        elif op == "add":
            tag = self.tags.pop(0)
            self.names += 1
            new_field = field_of(tag, f"{tag}field-{self.names}")
            fields.insert(rng.randrange(len(fields) + 1), new_field)
            what = f"add field {new_field.name!r}"
        else:
            what = f"remove field {fields[j].name!r}"
            self.removed.add(tag_of(fields[j]))
            fields.pop(j)
        self.log.append(f"{who}: {what}{', Save' if save else ' (not saved)'}")
        w.edit(PromptProfile.of_fields(fields, profile.name, profile.extra))
        if save:
            w.save(rng.choice(["mine", "mine", "theirs", "cancel"]))

    def check(self, final: bool) -> None:
        """See the module docstring."""
        saved = PromptProfile.load(self.path)
        where: dict[str, str] = {}
        for f in saved.fields:
            assert f.labels, f"field {f.name!r} without labels in the file: {[g.name for g in saved.fields]}"
            tag = tag_of(f)
            for e in f.taught:
                assert e.text[0] == tag and e.label[0] == tag, f"{e.text!r} ({e.label!r}) in field {f.name!r}"
                assert e.text not in where, f"{e.text!r} in two fields"
                where[e.text] = tag
        if final:
            there = {tag_of(f) for f in saved.fields}
            for text, tag in self.taught.items():
                if tag in there and tag not in self.removed:
                    assert where.get(text) == tag, f"{text!r} lost from field {tag!r}"


def walk(folder: Path, seed: int, steps: int, any_label: bool = False) -> Walk:
    """Run one seed's walk; raises AssertionError (the walk's log in the message) where the invariant fails."""
    path = folder / "prompt.json"
    PromptProfile.of_fields([field_of("q", "queue"), field_of("p", "priority")], "triage").save(path)
    state = Walk(path, random.Random(seed), any_label=any_label)

    async def main() -> None:
        docs = [PromptDocument(path, folder / f"draft-{n}.json", delay=NEVER, draft_delay=NEVER) for n in "ab"]
        state.windows = [Window(d, state.log) for d in docs]
        for w in state.windows:
            w.start()
        try:
            for _ in range(steps):
                state.step()
                state.check(final=False)
            for w in (*state.windows, state.windows[0]):
                w.doc.flush()
            state.check(final=True)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}: {exc}\n" + "\n".join(state.log)) from None
        finally:
            for d in docs:
                d.close()

    asyncio.run(main())
    return state
