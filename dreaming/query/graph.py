"""`links` (out, in, See also) and `infobox`: an article's neighbours and its fields.

Links are stored as the names written and resolved when read, so a link to an
article created later is found without re-indexing the article that links.
"""

from __future__ import annotations

from dreaming.article.titles import title_for_stem
from dreaming.ledger import Ledger, nav_index
from dreaming.query.budget import Result, clip, paged
from dreaming.query.names import find, lookup

CAP = 200
"""Names listed per direction; the count says how many there are."""
_OUT_VIA = ("prose", "main", "infobox", "series", "redirect")


def links(ledger: Ledger, stem: str, *, page: int) -> Result:
    entry = lookup(ledger, stem, "links")
    if isinstance(entry, Result):
        return entry
    out = nav_index.links_out(ledger, entry.stem)
    see_also = _names(ledger, [t for t, _, via in out if via == "seealso"])
    outgoing = _names(ledger, [t for t, _, via in out if via in _OUT_VIA])
    keys = nav_index.name_keys(ledger, entry.stem)
    keys += nav_index.name_keys_of(ledger, nav_index.redirects_to(ledger, keys))
    incoming = nav_index.links_in(ledger, sorted(set(keys)), entry.stem)
    lines: list[str] = []
    for label, names in (("See also", see_also), ("Out", outgoing), ("In", incoming)):
        lines.append(f"{label} ({len(names)}):")
        lines += [f"- {n}" for n in names[:CAP]] or ["- none"]
        if len(names) > CAP:
            lines.append(f"- … and {len(names) - CAP} more")
    data = {"stem": entry.stem, "see_also": see_also, "out": outgoing, "in": incoming}
    return paged(
        "links",
        header=f"# Links of {clip(entry.title, 200)} ({entry.stem})",
        body="\n".join(lines),
        page=page,
        next_read=lambda n: f"links {entry.stem} page={n}",
        data=data,
    )


def _names(ledger: Ledger, targets: list[str]) -> list[str]:
    """Each target as the stem it resolves to, else as written with `(no article)`."""
    shown: list[str] = []
    for target in dict.fromkeys(targets):
        found = find(ledger, target).stems
        if not found:
            shown.append(f"{title_for_stem(target)} (no article)")
        else:
            shown.append(found[0] if len(found) == 1 else title_for_stem(target))
    return list(dict.fromkeys(shown))


def infobox(ledger: Ledger, stem: str, *, page: int) -> Result:
    entry = lookup(ledger, stem, "infobox")
    if isinstance(entry, Result):
        return entry
    facts = nav_index.facts(ledger, entry.stem)
    body = "\n".join(f"- {k}: {v}" for k, v in facts) if facts else "(no infobox)"
    return paged(
        "infobox",
        header=f"# Infobox of {clip(entry.title, 200)} ({entry.stem})",
        body=body,
        page=page,
        next_read=lambda n: f"infobox {entry.stem} page={n}",
        data={"stem": entry.stem, "fields": [[k, v] for k, v in facts]},
    )
