"""Labels renamed in the prompt editor, followed by the taught tickets (W14: a lead renamed 'accounts' to
'identity' and saved; the two tickets taught 'accounts' kept a label the prompt no longer had, so the fit left
them out and one went back to the first pass's guess). Qt-free: the editor records each rename as typed, in
order; a Save asks which of them hold for a field, given its labels before and after."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def renamed_labels(renames: Sequence[tuple[str, str]], before: Sequence[str], after: Sequence[str]) -> dict[str, str]:
    """Old name -> new name for a field whose labels were ``before`` (saved) and are ``after`` (to save), from
    the renames typed in order (``a → b`` then ``b → c`` is ``a → c``; ``x → y`` then ``y → x`` is none). A rename
    holds where the old name went and the new one came: one taken back, or onto a name the field had (a label
    removed and another renamed to it), renames nothing."""
    chain: dict[str, str] = {}
    for old, new in renames:
        sources = [k for k, v in chain.items() if v == old] or [old]
        for source in sources:
            chain[source] = new
    was, now = set(before), set(after)
    return {old: new for old, new in chain.items() if old != new and old in was - now and new in now - was}


def chained(earlier: Mapping[str, str], mapping: Mapping[str, str]) -> dict[str, str]:
    """The renames since a version's labels (``earlier``, old -> new) once ``mapping`` renames again: a label
    renamed twice maps its first name to its last; the newest rename of a name wins (what the flips read)."""
    return {**{old: mapping.get(new, new) for old, new in earlier.items()}, **mapping}
