"""Refreshing the navigation index: `articles/` against the ledger's rows, per file.

A query first lists `articles/` (one `scandir`, one `lstat` a file) and compares
each file's (mtime_ns, size) with what the index holds; only a file that differs
is read, and only one whose checksum differs is parsed again. A file that cannot
be read as an article (binary, not UTF-8, huge, a link, not a regular file) is
indexed as unreadable with the reason, so every tool can say why. Nothing is
ever written to the vault.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

from dreaming.article.document import parse
from dreaming.article.queries import article_definitions, redirect_target
from dreaming.article.titles import title_for_stem
from dreaming.ledger import Ledger, nav_index
from dreaming.ledger.article_index import IndexRows
from dreaming.ledger.nav_index import NavArticle, NavSection, Stamp
from dreaming.reindex import index_article
from dreaming.subjects import canonical
from dreaming.vault import Vault, checksum

MAX_ARTICLE_BYTES = 4 * 1024 * 1024
"""A bigger file in articles/ is no article a person wrote; it is indexed as unreadable."""
FOOTNOTE_CHARS = 300
"""A footnote line appended to a section is cut to this many characters."""


@dataclass(frozen=True, slots=True)
class _Listed:
    mtime_ns: int
    size: int
    problem: str | None
    """Why the entry is no regular file, else None."""


@dataclass
class Refreshed:
    parsed: int = 0
    restamped: int = 0
    dropped: int = 0


class NavIndex:
    """The index of one vault, and what this process last saw of `articles/`."""

    def __init__(self, vault: Vault, ledger: Ledger) -> None:
        self.vault = vault
        self.ledger = ledger
        self._known: dict[str, Stamp] | None = None

    def refresh(self) -> Refreshed:
        """Bring the index up to date with `articles/`; cheap when nothing changed."""
        listing = _scan(self.vault)
        if self._known is None:
            self._known = nav_index.stamps(self.ledger)
        known = self._known
        changed = [
            stem
            for stem, seen in listing.items()
            if (k := known.get(stem)) is None or (k.mtime_ns, k.size) != (seen.mtime_ns, seen.size)
        ]
        gone = [stem for stem in known if stem not in listing]
        done = Refreshed()
        if not changed and not gone:
            return done
        rows = [_read(self.vault, stem, listing[stem], known.get(stem)) for stem in changed]
        with self.ledger.transaction():
            nav_index.drop(self.ledger, gone)
            for stem, row in zip(changed, rows, strict=True):
                if isinstance(row, Stamp):
                    nav_index.restamp(self.ledger, stem, row)
                    known[stem] = row
                    done.restamped += 1
                else:
                    nav_index.put(self.ledger, row)
                    known[stem] = row.stamp
                    done.parsed += 1
        for stem in gone:
            del known[stem]
        done.dropped = len(gone)
        return done


def _scan(vault: Vault) -> dict[str, _Listed]:
    listing: dict[str, _Listed] = {}
    try:
        entries = list(os.scandir(vault.articles))
    except FileNotFoundError:
        return listing
    for entry in entries:
        name = entry.name
        if not name.endswith(".md") or name.startswith(".") or len(name) == 3:
            continue
        stem = name[:-3]
        try:
            stem.encode("utf-8")
            st = entry.stat(follow_symlinks=False)
        except (UnicodeEncodeError, OSError):
            # A name that is not UTF-8 cannot be asked for by any tool; a file that
            # vanished since the listing is gone.
            continue
        if stat.S_ISDIR(st.st_mode):
            continue
        problem = None
        if stat.S_ISLNK(st.st_mode):
            problem = "a link; dreaming reads only real files in articles/, so replace it"
        elif not stat.S_ISREG(st.st_mode):
            problem = "not a regular file; move it out of articles/"
        listing[stem] = _Listed(st.st_mtime_ns, st.st_size, problem)
    return listing


def _read(vault: Vault, stem: str, seen: _Listed, known: Stamp | None) -> NavArticle | Stamp:
    """The file's rows, or only its new stamp when its bytes are the indexed ones."""
    title = title_for_stem(stem)
    if seen.problem is not None:
        return _unreadable(stem, Stamp(seen.mtime_ns, seen.size, ""), title, seen.problem)
    if seen.size > MAX_ARTICLE_BYTES:
        why = f"{seen.size} bytes, over {MAX_ARTICLE_BYTES}; split it or move it out of articles/"
        return _unreadable(stem, Stamp(seen.mtime_ns, seen.size, ""), title, why)
    try:
        data = read_article_bytes(vault, stem)
    except OSError as e:
        why = f"cannot be read ({e.strerror or e}); check its permissions"
        return _unreadable(stem, Stamp(seen.mtime_ns, seen.size, ""), title, why)
    stamp = Stamp(seen.mtime_ns, seen.size, checksum(data))
    if known is not None and known.checksum == stamp.checksum:
        return stamp
    if b"\0" in data:
        return _unreadable(stem, stamp, title, "binary (holds NUL bytes); move it out of articles/")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return _unreadable(stem, stamp, title, f"not UTF-8 text ({e.reason}); save it as UTF-8")
    return _article(stem, stamp, text)


def read_article_bytes(vault: Vault, stem: str) -> bytes:
    """The bytes of `articles/<stem>.md` for a stem taken from the listing: never through
    a link, never anything but a regular file (a FIFO would block the reader)."""
    path = vault.article_path(stem)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ARTICLE_BYTES:
            raise OSError(errno.EINVAL, "not a regular article file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_ARTICLE_BYTES + 1)
    finally:
        os.close(fd)


def _unreadable(stem: str, stamp: Stamp, title: str, why: str) -> NavArticle:
    names = {(canonical(title), title, "stem")}
    return NavArticle(stem, stamp, title, unreadable=why, names=names)


def _article(stem: str, stamp: Stamp, text: str) -> NavArticle:
    article = parse(text)
    rows = IndexRows()
    index_article(stem, article, stamp.checksum, {}, rows)
    derived = rows.articles[0]
    redirect = redirect_target(article)
    a = NavArticle(
        stem,
        stamp,
        derived.title,
        kind=derived.kind,
        type=derived.type,
        redirect=redirect,
        redirect_key=canonical(redirect) if redirect else None,
    )
    a.names.add((canonical(derived.title), derived.title, "title"))
    stem_title = title_for_stem(stem)
    a.names.add((canonical(stem_title), stem_title, "stem"))
    box = dict(article.infobox or ())
    for alias in (x.strip() for x in box.get("aliases", "").split(",")):
        if alias and canonical(alias):
            a.names.add((canonical(alias), alias, "alias"))
    a.sections.append(NavSection(0, "", 0, article.lead))
    for i, s in enumerate(article.sections, start=1):
        a.sections.append(NavSection(i, s.heading, s.level, s.body))
    for d in article_definitions(article):
        a.footnotes.setdefault(d.label, f"[^{d.label}]: {d.text}"[:FOOTNOTE_CHARS])
    a.facts = list(article.infobox or ())
    for _, name in sorted(rows.article_categories):
        a.categories.setdefault(canonical(name), name)
    for _, dst, via in rows.links:
        if key := canonical(dst):
            a.links.add((key, dst, via))
    return a
