"""Which saved field each of the editor's fields is, so that a field moved in the prompt editor (or renamed,
or one before it removed) keeps its own taught tickets, versions and random checks when it is saved
(:meth:`PromptDocument.save`).

A field is matched by its name (a one-field prompt's unnamed field by the name *Add a field* gives it), else by
its labels where no other field has the same (renamed and moved in one Save); the fields left are matched in order
among themselves when the number of fields is unchanged (a rename, where they share a label), and are new otherwise
(as the document matched them before fields could move). One
case stays ambiguous and is read as renames in place: two fields renamed and moved in the one Save, each to a
name the other had. A field a Save removed is kept by the document, by name, until the file changes: an undo
in the editor that puts it back, and a Save, give it its taught tickets, versions and checks again; and a
one-field prompt's unnamed field (the one a Save left) is also known by its labels, as the field of that name
it was. What the session holds per further field (taught tickets, checks) is put to the file's fields by name
too (:func:`by_name`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..engine.prompt import Field, PromptProfile

FIRST_FIELD = "field 1"  # the name a one-field prompt's (unnamed) field gets when a second is added


def field_order(new: Sequence[Field], old: Sequence[Field]) -> list[int | None]:
    """For each of ``new``, the index of the field of ``old`` it is (None: a field added)."""
    if len(new) == 1 and len(old) > 1:
        return [remaining(new[0], old)]
    index: dict[str, int] = {}
    for i, f in enumerate(old):
        index.setdefault(f.name or FIRST_FIELD, i)  # a one-field prompt's field, named when one was added
    if len(old) == 1 and not old[0].name and FIRST_FIELD not in (f.name for f in new):
        same = [f.name for f in new if f.label_names == old[0].label_names]
        if len(same) == 1:  # the one field a Save left, its name back from an undo: known by its labels
            index = {same[0]: 0}
    order: list[int | None] = []
    for f in new:
        found = index.get(f.name)
        order.append(found if found is not None and found not in order else None)
    for alike in (lambda o, f: o.label_names == f.label_names, shares):  # renamed (and moved): known by its labels
        for k, f in enumerate(new):  # (the same, else one in common), where one field of each side has them
            at = [i for i, o in enumerate(old) if i not in order and f.label_names and alike(o, f)]
            if order[k] is None and len(at) == 1 and sum(alike(old[at[0]], g) for g in new) == 1:
                order[k] = at[0]
    if len(new) == len(old):  # the fields no name matched, in order among themselves: renamed, where they may be
        free = [i for i in range(len(old)) if i not in order]
        for k, i in zip([k for k, o in enumerate(order) if o is None], free, strict=True):
            order[k] = i if renamed(old[i], new[k]) else None
    return order


def regrouped(order: Sequence[int | None]) -> bool:
    """Whether a Save's fields are each to be given what they keep by :func:`carried`: one moved (:func:`moved`),
    or the first one new (the queue removed and a sentiment put first). Given the first field's taught set by
    place, the sentiment took the queue's tickets (W19)."""
    return moved(order) or (len(order) > 1 and order[0] is None)


def shares(old: Field, new: Field) -> bool:
    """Whether ``new`` keeps a label of ``old`` (or every label ``old``'s taught tickets have, renamed before)."""
    return bool(set(old.label_names) & set(new.label_names)) or (renamed(old, new) and bool(old.label_names))


def renamed(old: Field, new: Field) -> bool:
    """Whether ``new`` can be ``old`` renamed: they share a label (or either has none yet). The priority removed
    and a sentiment added in one Save was read as the priority renamed, and the sentiment took its taught tickets,
    'high' and 'low', none of its labels (W18)."""
    if not (old.label_names and new.label_names) or set(old.label_names) & set(new.label_names):
        return True
    taught = {e.label for e in old.taught}  # (every label renamed: its taught tickets already have the new names)
    return bool(taught) and taught <= set(new.label_names)


def remaining(field: Field, old: Sequence[Field]) -> int:
    """Which of ``old`` is the one field left when the others were removed: the prompt editor leaves it unnamed
    (the classic prompt), so it is the field of its name, else the one field with its labels, else the first.
    Saved as the first, the priority left alone lost its taught tickets, versions and checks (W6 sweep)."""
    names = [f.name for f in old]
    if field.name in names:
        return names.index(field.name)
    same = [i for i, f in enumerate(old) if f.label_names == field.label_names]
    return same[0] if len(same) == 1 else 0


def moved(order: Sequence[int | None]) -> bool:
    """Whether a field is saved at another place than it had (a move, or a field before it removed); a
    field added after the others, or the last ones removed, moves none."""
    return any(o is not None and o != i for i, o in enumerate(order))


def reordered(profile: PromptProfile, order: Sequence[int | None]) -> PromptProfile:
    """``profile``'s fields, each with what it keeps, in ``order`` (a field added: an empty one), as one
    prompt: the merge's base and the file as it is now, taken in the order being saved."""
    fields = profile.fields
    out = [fields[o] if o is not None else Field("", "", []) for o in order]
    return PromptProfile.of_fields(out, profile.name, profile.extra)


def in_order_of(new: Sequence[Field], base: PromptProfile, theirs: PromptProfile) -> PromptProfile | None:
    """The file as it is now (``theirs``) in the order being saved (``new``), as the merge's base (``base``) is taken
    (:func:`reordered`); None where the other window added or removed a field since (or renamed one out of reach):
    reordered, the file had a field with no name nor labels where ours stood, and the file could not be read again
    by either window (W19). Then both changed the fields, and the Save asks first."""
    mine, there = field_order(new, base.fields), field_order(new, theirs.fields)
    if any((a is None) != (b is None) for a, b in zip(mine, there, strict=True)):
        return None
    left = {base.fields[i].name for i in range(len(base.fields)) if i not in mine}  # the ones this Save removed
    if any(f.name not in left for i, f in enumerate(theirs.fields) if i not in there):
        return None
    return reordered(theirs, there)


def carried(
    profile: PromptProfile, kept: Sequence[Field], order: Sequence[int | None], removed: Mapping[str, Field]
) -> list[Field]:
    """The editor's fields (``profile``), each with the taught tickets, versions and checks ``kept`` holds
    for the field it was (a field added: what ``removed`` keeps of the field an earlier Save removed that it
    is, :func:`put_back`; else none)."""
    out = []
    for f, o in zip(profile.fields, order, strict=True):
        was = kept[o] if o is not None else put_back(f, removed) or Field("", "", [])
        out.append(replace(f, taught=list(was.taught), history=list(was.history), checks=list(was.checks)))
    return out


def put_back(field: Field, removed: Mapping[str, Field]) -> Field | None:
    """The field an earlier Save removed that ``field`` is, put back by an undo: its name and its labels (a new
    field given a removed one's name, with other labels, starts empty)."""
    was = removed.get(field.name)
    return was if was is not None and was.label_names == field.label_names else None


def by_name(doc: PromptProfile, sets: Sequence[Sequence], names: Sequence[str], own, label=None) -> Sequence[Sequence]:
    """Each of ``doc``'s further fields' set from ``sets`` (the session's further fields', ``names`` being all its
    fields', the first's first): of the field of its name, else the one at its place renamed (its name none of the
    session's, the session's none of the file's, every ``label`` of the set one of its labels: a failed build after
    a rename), else its own (``own``). By place alone, a session still on the fields before a move (or before
    another window's Save that put a sentiment where the priority was) wrote one field's set into another (W18)."""
    fields = doc.more_fields
    if len(names) != len(sets) + 1:
        return sets if len(sets) == len(fields) else [own(f) for f in fields]
    theirs, found = {doc.field_name, *(f.name for f in fields)}, dict(zip(names[1:], sets, strict=True))

    def in_place(i: int, f: Field) -> bool:  # (not the module's renamed: this one reads the session's sets)
        if i >= len(sets) or names[i + 1] in theirs or f.name in names:
            return False
        return label is None or {label(x) for x in sets[i]} <= set(f.label_names)

    return [found[f.name] if f.name in found else sets[i] if in_place(i, f) else own(f) for i, f in enumerate(fields)]
