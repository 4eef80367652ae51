"""`links` (out, in, See also) and `infobox`: an article's neighbours and its fields.

Links are stored as the names written and resolved when read, so a link to an
article created later is found without re-indexing the article that links.
"""

from __future__ import annotations

from dreaming.article.titles import title_for_stem
from dreaming.ledger import Ledger, nav_index
from dreaming.query.budget import Listing, Result, again, paged, short
from dreaming.query.names import find, lookup

CAP = 200
"""Names listed per direction; the count says how many there are."""
ITEM = 400
"""A name or field value in a page's data is clipped to this many bytes of JSON (a stem
is at most 200 bytes, so one is never clipped unless it is all quotes)."""
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
    rows: list[tuple[str, tuple[str, object] | None]] = []
    groups = (("See also", "see_also", see_also), ("Out", "out", outgoing), ("In", "in", incoming))
    for label, key, names in groups:
        rows.append((f"{label} ({len(names)}):", None))
        rows += [(f"- {n}", (key, n)) for n in (short(x, ITEM) for x in names[:CAP])] or [
            ("- none", None)
        ]
        if len(names) > CAP:
            rows.append((f"- … and {len(names) - CAP} more", None))
    listing = Listing.of(tuple(key for _, key, _ in groups), rows)
    return paged(
        "links",
        header=f"# Links of {short(entry.title)} ({entry.stem})",
        body=listing.body,
        page=page,
        next_read=lambda n: again("links", entry.stem, n),
        data={"stem": entry.stem},
        shown=listing.shown,
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
    rows = [(f"- {k}: {v}", ("fields", [short(k), short(v, ITEM)])) for k, v in facts]
    listing = Listing.of(("fields",), rows or [("(no infobox)", None)])
    return paged(
        "infobox",
        header=f"# Infobox of {short(entry.title)} ({entry.stem})",
        body=listing.body,
        page=page,
        next_read=lambda n: again("infobox", entry.stem, n),
        data={"stem": entry.stem},
        shown=listing.shown,
    )
