"""The reserved buckets of Meta/Buckets.md, as BUCKET reads them."""

from __future__ import annotations

from dreaming.policy.buckets import reserved_buckets, story_key
from tests.support import REPO

SHIPPED = (REPO / "meta_templates" / "Buckets.md").read_text(encoding="utf-8")


def test_the_shipped_page_reserves_captured() -> None:
    assert reserved_buckets(SHIPPED) == {"_captured"}


def test_a_name_the_person_adds_is_reserved_and_a_comment_is_not() -> None:
    page = SHIPPED.replace("_captured\n```", "_captured\n# _not_this\n_archive\n```")
    assert reserved_buckets(page) == {"_captured", "_archive"}


def test_captured_stays_reserved_when_a_broken_page_lacks_it() -> None:
    assert reserved_buckets("# Buckets\n") == {"_captured"}


def test_a_story_key_never_is_or_looks_like_a_reserved_name() -> None:
    reserved = frozenset({"_captured", "__"})
    assert story_key("garden bed", reserved) == "garden bed"
    assert story_key("__", reserved) == "story __"
    assert story_key("_x", reserved) == "story _x"
