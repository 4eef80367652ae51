"""LINK: in every article, the first mention of each other article in a section's prose
becomes a wikilink. Code only: no model call, the words never change.

One unit an article, a person's included; its input is its own bytes and the names
of every article, so a night that adds or renames an article links everything again
and a night that changes nothing links nothing. Every change goes through the write
door (the person's edit since our read wins).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from dreaming.article import LEAD, parse
from dreaming.article.linking import Target, link_article
from dreaming.article.queries import is_redirect
from dreaming.article.titles import title_for_stem
from dreaming.errors import RefusedFileError, UnsafePathError
from dreaming.vault import Vault, checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional
from stages.runner.contract import StageContext, StageName, Unit, UnitResult, unwritten
from stages.runner.write import Edit, resolve

VERSION = "1"
"""Part of every unit's input: a changed rule links every article again."""


class LinkStage:
    name: StageName = "link"
    policy: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._targets: tuple[str, list[Target]] = ("", [])
        """The run whose units were listed, and the articles' names then."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        texts = _articles(ctx.vault)
        targets = [t for t in (_target(stem, text) for stem, text in texts.items()) if t]
        self._targets = (ctx.run_id, targets)
        names = hashlib.sha256(
            "\x00".join(f"{t.stem}\x01{'|'.join(t.names)}" for t in targets).encode("utf-8")
        ).hexdigest()
        for stem, text in texts.items():
            # Keyed on the text as it is: listing stays a read and a hash an article (a
            # night with nothing new must stay cheap); an article LINK wrote is linked
            # once more the next night, and that finds nothing to change.
            digest = hashlib.sha256(f"{VERSION}\x00{names}\x00{checksum(text)}".encode())
            yield Unit(stem, digest.hexdigest(), f"link {title_for_stem(stem)}")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        if ctx.writer is None:
            return UnitResult("failed", "a dry run writes nothing")
        try:
            path = resolve(ctx.vault, unit.key).path
            before = read_optional(ctx.vault, path, cap=MAX_PAGE_BYTES, what="an article")
        except (UnsafePathError, RefusedFileError) as e:
            return UnitResult("failed", str(e))
        if before is None:
            return UnitResult("done", "gone since the units were listed")
        try:
            text = before.decode("utf-8")
        except UnicodeDecodeError:
            return UnitResult("failed", f"articles/{unit.key}.md is not UTF-8 text")
        if is_redirect(parse(text)):
            return UnitResult("done")
        linked, changed = link_article(text, self._names(ctx), unit.key)
        if not changed:
            return UnitResult("done")
        touched = tuple(LEAD if heading == "" else heading for heading in changed)
        edit = Edit(unit.key, linked, checksum(before), touched, stage="link", unit=unit.key)
        refused = unwritten(ctx.writer.write(edit))
        if refused is not None:
            return refused
        return UnitResult("done", f"{len(changed)} sections linked")

    def _names(self, ctx: StageContext) -> Sequence[Target]:
        run_id, targets = self._targets
        if run_id == ctx.run_id:
            return targets
        return [t for t in (_target(s, x) for s, x in _articles(ctx.vault).items()) if t]


def _articles(vault: Vault) -> dict[str, str]:
    """Every readable article's text by stem, in stem order; the audit reports the rest."""
    out: dict[str, str] = {}
    if not vault.articles.is_dir():
        return out
    for path in sorted(vault.articles.glob("*.md")):
        if path.name.startswith("."):
            continue
        try:
            data = read_optional(vault, path, cap=MAX_PAGE_BYTES, what="an article")
            if data is not None:
                out[path.stem] = data.decode("utf-8")
        except (RefusedFileError, UnicodeDecodeError):
            continue
    return out


def _target(stem: str, text: str) -> Target | None:
    """The names an article answers to (its title and infobox aliases); a redirect is
    no target of its own."""
    article = parse(text)
    if is_redirect(article):
        return None
    aliases = dict(article.infobox or ()).get("aliases", "")
    names = tuple(a.strip() for a in aliases.split(",") if a.strip())
    return Target(stem, (article.title or title_for_stem(stem), *names))
