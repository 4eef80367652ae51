"""Refreshing the navigation index: `articles/` against the ledger's rows, per file.

A query first lists `articles/` (one `scandir`, one `lstat` a file; see
`NavIndex.refresh` for when a reader needs less) and compares
each file's (mtime_ns, size) with what the index holds; only a file that differs
is read, and only one whose checksum differs is parsed again. A file that cannot
be read as an article (binary, not UTF-8, huge, a link, not a regular file) is
indexed as unreadable with the reason, so every tool can say why. Nothing is
ever written to the vault.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import multiprocessing
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from dreaming.article.document import Article, parse
from dreaming.article.queries import aliases, article_definitions, redirect_target
from dreaming.article.titles import MAX_STEM_BYTES, title_for_stem
from dreaming.errors import LedgerError, RefusedFileError
from dreaming.ledger import Ledger, nav_index
from dreaming.ledger.article_index import IndexRows
from dreaming.ledger.nav_index import NavArticle, NavSection, Stamp
from dreaming.query.events import ArticleEvents
from dreaming.query.rows import index_article
from dreaming.subjects.names import canonical
from dreaming.vault import Vault, checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_bytes

MAX_ARTICLE_BYTES = MAX_PAGE_BYTES
"""A bigger file in articles/ is no article a person wrote; it is indexed as unreadable."""
RECHECK_SECONDS = 1.0
"""While `articles/` itself is unchanged (no file added, removed or renamed: an editor's
save by rename changes it), a reader trusts its last full check this long. Only an
edit written in place inside this window waits for the next check; without the
window every read on a 10,000-article vault would `lstat` 10,000 files."""
FOLLOWED_RECHECK_SECONDS = 60.0
"""While file events are followed, every file is still `lstat`ed this often: an event
the OS dropped (its queue overflowed) is made good within a minute."""
BUSY_MS = 200
"""How long a read waits for another process's write before using the index as it is."""
RACY_NS = 2_000_000_000
"""File systems stamp times this coarsely at worst (FAT: 2 s)."""
PARALLEL_FROM = 500
"""This many files to parse (a first build) are parsed in worker processes."""
FOOTNOTE_CHARS = 300
"""A footnote line appended to a section is cut to this many characters."""


_CONTROL = re.compile(r"[\x00-\x1f]")
LINK = "a link; dreaming reads only real files in articles/, so replace it"


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
    busy: bool = False
    """The ledger was busy: the index was left as it was."""


class NavIndex:
    """The index of one vault, and what this process last saw of `articles/`."""

    recheck_seconds = RECHECK_SECONDS

    def __init__(self, vault: Vault, ledger: Ledger) -> None:
        self.vault = vault
        self.ledger = ledger
        self._known: dict[str, Stamp] | None = None
        self._inodes: dict[str, int] = {}
        self._folder = -1
        self._identity: tuple[int, int] | None = None
        """(device, inode) of `articles/` as last checked; None while it is missing."""
        self._seen = False
        """Whether `_identity` was ever taken."""
        self._checked_at: float | None = None
        """When every file was last `lstat`ed (monotonic seconds)."""
        self._events: ArticleEvents | None = None

    def follow(self, *, wait: float = 0.0) -> bool:
        """Learn of changed files from the OS's file events from now on (a long-lived
        reader: see `dreaming.query.events`). Events are trusted after the first full
        check made once the watch is in place: with `wait`, wait up to that many
        seconds for the watch and make that check now. Whether events are trusted."""
        if self._events is None:
            self._events = ArticleEvents(self.vault.articles)
            self._events.start()
        deadline = time.monotonic() + wait
        while self._events.ready_at is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self._events.ready_at is None:
            return False
        self.refresh()
        return True

    def close(self) -> None:
        if self._events is not None:
            self._events.close()
            self._events = None

    def _articles_folder(self) -> int:
        """The mtime of `articles/` (-1 while it is missing). When it is another folder
        than last time (its device and inode tell), or none, every file is checked now
        and the file events follow the new one; a folder that now leads out of the vault
        is refused before anything in it is read."""
        try:
            st = os.stat(self.vault.articles)
        except OSError:
            st = None
        identity = (st.st_dev, st.st_ino) if st is not None else None
        if not self._seen or identity != self._identity:
            if st is not None:
                self.vault.check_layout(("articles",))
            if self._seen:
                self._checked_at, self._folder = None, -1
                if self._events is not None:
                    self._events.close()
                    self._events = ArticleEvents(self.vault.articles)
                    self._events.start()
            self._identity, self._seen = identity, True
        return st.st_mtime_ns if st is not None else -1

    def refresh(self, parsed: Mapping[str, NavArticle] | None = None) -> Refreshed:
        """Bring the index up to date with `articles/`; cheap when nothing changed.
        `parsed`: rows already made from files (`dreaming reindex`'s parse), used for a
        file whose checksum is theirs instead of parsing it again.

        A file added, removed or saved by rename changes the folder's mtime and the
        name's inode, so it is seen at once by listing names and inodes (no `lstat`);
        every file is `lstat`ed again at most every `recheck_seconds`, or, while file
        events are followed, only the files they name (and all of them every
        `FOLLOWED_RECHECK_SECONDS`). A different `articles/` (moved away, deleted,
        replaced) is checked in full at once, and followed anew."""
        folder = self._articles_folder()
        now = time.monotonic()
        ready = self._events.ready_at if self._events is not None else None
        # Events count only once a full check has looked after the watch was in place:
        # the first refresh after that makes one.
        followed = ready is not None and self._checked_at is not None and self._checked_at >= ready
        every = FOLLOWED_RECHECK_SECONDS if followed else self.recheck_seconds
        due = (
            self._checked_at is None
            or now - self._checked_at >= every
            or (ready is not None and not followed)
        )
        reported = self._events.take() if self._events is not None else set()
        named = {n[:-3] for n in reported if n.endswith(".md")}
        if not due and folder == self._folder and not (followed and named):
            return Refreshed()
        self._folder = folder
        entries = _entries(self.vault)
        if due:
            self._checked_at = now
            look = list(entries)
        else:
            look = [s for s, e in entries.items() if self._inodes.get(s) != e.inode() or s in named]
        self._inodes = {stem: e.inode() for stem, e in entries.items()}
        if time.time_ns() - folder < RACY_NS:
            # A change later in the same clock tick would leave the folder's mtime as it
            # is (git's "racy" case): list again until that mtime is safely past.
            self._folder = -1
        listing = {stem: seen for stem in look if (seen := _listed(entries[stem])) is not None}
        if self._known is None:
            self._known = nav_index.stamps(self.ledger)
        known = self._known
        changed = [
            stem
            for stem, seen in listing.items()
            if (k := known.get(stem)) is None or (k.mtime_ns, k.size) != (seen.mtime_ns, seen.size)
        ]
        looked = set(look)
        gone = [s for s in known if s not in entries or (s in looked and s not in listing)]
        done = Refreshed()
        if not changed and not gone:
            return done
        asks = [(stem, listing[stem], known.get(stem)) for stem in changed]
        rows: list[NavArticle | Stamp] = []
        try:
            with (
                _read_all(self.vault, asks, parsed or {}) as read,
                nav_index.brief_wait(self.ledger, BUSY_MS),
                self.ledger.transaction(),
            ):
                nav_index.drop(self.ledger, gone)
                for (stem, _, was), row in zip(asks, read, strict=True):
                    rows.append(row)
                    if isinstance(row, Stamp):
                        nav_index.restamp(self.ledger, stem, row)
                        done.restamped += 1
                    else:
                        nav_index.put(self.ledger, row, new=was is None)
                        done.parsed += 1
        except LedgerError:
            # Another process (a night) is writing the ledger: answer from the index as
            # it stands and look again at the next read.
            self._checked_at, self._folder = None, -1
            return Refreshed(busy=True)
        for stem, row in zip(changed, rows, strict=True):
            known[stem] = row if isinstance(row, Stamp) else row.stamp
        for stem in gone:
            del known[stem]
        done.dropped = len(gone)
        return done


@contextlib.contextmanager
def _read_all(
    vault: Vault,
    asks: list[tuple[str, _Listed, Stamp | None]],
    parsed: Mapping[str, NavArticle],
) -> Iterator[Iterator[NavArticle | Stamp]]:
    """`_read` of each, in order. Entered before the ledger's write transaction: in one
    process every file is read and parsed on entering, so the write lock is held only
    while the rows are written. A first build of a big vault parses in one process a
    core, as they come, while this one writes the rows, where that is safe: forked
    children (spawned ones would re-run the caller's script), so only on Linux and from
    a process without threads (a fork copies no thread, and a lock another thread held
    stays held in the child)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    serial = len(asks) < PARALLEL_FROM or cores < 2 or sys.platform != "linux"
    if serial or parsed or threading.active_count() > 1:
        yield iter([_read(vault, *ask, parsed) for ask in asks])
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=cores, mp_context=context) as pool:
        yield pool.map(_read_one, [(vault, *ask) for ask in asks], chunksize=64)


def _read_one(ask: tuple[Vault, str, _Listed, Stamp | None]) -> NavArticle | Stamp:
    return _read(*ask)


def _entries(vault: Vault) -> dict[str, os.DirEntry[str]]:
    """The `*.md` names of `articles/` by stem, those a tool can be asked for (`_askable`);
    no other can be, so it is left out."""
    try:
        with os.scandir(vault.articles) as it:
            found = list(it)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    entries = {}
    for entry in found:
        name = entry.name
        if not name.endswith(".md") or name.startswith(".") or len(name) == 3:
            continue
        if not _askable(name):
            continue
        entries[name[:-3]] = entry
    return entries


def _askable(name: str) -> bool:
    """Whether a tool could be asked for this name and echo it within the budget: UTF-8,
    no control character (a line break, a tab) and at most MAX_STEM_BYTES."""
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return False
    return size <= MAX_STEM_BYTES + 3 and _CONTROL.search(name) is None


def _listed(entry: os.DirEntry[str]) -> _Listed | None:
    """The entry's stamp and why it is no article file; None for a folder or a file
    that vanished since the listing."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        return None
    problem = None
    if stat.S_ISLNK(st.st_mode):
        problem = LINK
    elif not stat.S_ISREG(st.st_mode):
        problem = "not a regular file; move it out of articles/"
    return _Listed(st.st_mtime_ns, st.st_size, problem)


def _read(
    vault: Vault,
    stem: str,
    seen: _Listed,
    known: Stamp | None,
    parsed: Mapping[str, NavArticle] | None = None,
) -> NavArticle | Stamp:
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
        why = LINK if e.errno == errno.ELOOP else f"cannot be read ({e.strerror or e})"
        if e.errno in (errno.EACCES, errno.EPERM):
            why += "; check its permissions"
        return _unreadable(stem, Stamp(seen.mtime_ns, seen.size, ""), title, why)
    stamp = Stamp(seen.mtime_ns, seen.size, checksum(data))
    if known is not None and known.checksum == stamp.checksum:
        return stamp
    given = (parsed or {}).get(stem)
    if given is not None and given.stamp.checksum == stamp.checksum:
        return dataclasses.replace(given, stamp=stamp)
    if b"\0" in data:
        return _unreadable(stem, stamp, title, "binary (holds NUL bytes); move it out of articles/")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return _unreadable(stem, stamp, title, f"not UTF-8 text ({e.reason}); save it as UTF-8")
    return _article(stem, stamp, text)


def read_article_bytes(vault: Vault, stem: str) -> bytes:
    """The bytes of `articles/<stem>.md` for a stem taken from the listing, through the
    vault's one guarded read (the file may have become a link or a FIFO since it was
    listed); an OSError says why not."""
    if not stem or "/" in stem or "\0" in stem:
        raise OSError(errno.EINVAL, "not an article name")
    try:
        return read_bytes(
            vault, vault.articles / f"{stem}.md", cap=MAX_ARTICLE_BYTES, what="an article"
        )
    except RefusedFileError as e:
        raise OSError(errno.EINVAL, e.reason) from None


def _unreadable(stem: str, stamp: Stamp, title: str, why: str) -> NavArticle:
    names = {(canonical(title), title, "stem")}
    return NavArticle(stem, stamp, title, unreadable=why, names=names)


def _article(stem: str, stamp: Stamp, text: str) -> NavArticle:
    article = parse(text)
    rows = IndexRows()
    index_article(stem, article, stamp.checksum, {}, rows)
    return nav_article(stem, stamp, article, rows)


def nav_article(stem: str, stamp: Stamp, article: Article, rows: IndexRows) -> NavArticle:
    """The index's rows of a parsed article, given its article-index rows made with no
    link resolution (`index_article` with an empty `by_key`)."""
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
    for alias in aliases(article):
        if canonical(alias):
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
