"""A file's conversations each under an id of its own (`dreaming.raw.identity`): chats
named alike stay apart, an earlier state of one is folded into it, and a file that grows
keeps every id."""

from __future__ import annotations

import time

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dreaming.raw.identity import distinct
from dreaming.transcript import Conversation, Message, Role, content_id
from tests.support import draws


def chat(*texts: str, name: str = "same") -> Conversation:
    roles: tuple[Role, Role] = ("user", "assistant")
    messages = tuple(Message(roles[i % 2], t) for i, t in enumerate(texts))
    return Conversation(source="chatgpt", source_id=name, messages=messages, own_id=False)


def test_chats_named_alike_get_ids_of_their_own_in_file_order() -> None:
    out = distinct([chat("hi", "one"), chat("hi", "two"), chat("hi", "three")])
    assert [c.source_id for c in out] == [
        "same",
        content_id("chatgpt", "same", "#1"),
        content_id("chatgpt", "same", "#2"),
    ]


def test_an_earlier_state_after_its_chat_is_folded_into_it() -> None:
    out = distinct([chat("hi", "one", "more"), chat("hi", "one")])
    assert [len(c.messages) for c in out] == [3]


def test_a_later_state_after_its_chat_takes_its_place_and_id() -> None:
    out = distinct([chat("hi", "one"), chat("hi", "two"), chat("hi", "one", "more")])
    assert [(c.source_id, len(c.messages)) for c in out] == [
        ("same", 3),
        (content_id("chatgpt", "same", "#1"), 2),
    ]


def test_a_chat_parting_from_a_grown_one_where_it_used_to_end_is_another() -> None:
    out = distinct([chat("hi", "one"), chat("hi", "one", "more"), chat("hi", "one", "else")])
    assert [c.messages[-1].text for c in out] == ["more", "else"]


def test_chats_under_names_of_their_own_are_left_as_they_are() -> None:
    chats = [chat("hi", "one", name="a"), chat("hi", "one", name="b")]
    assert distinct(chats) == chats


TEXTS = st.sampled_from(["hi", "ok", "bread?", "rye"])
CHATS = st.lists(st.lists(TEXTS, min_size=1, max_size=4), min_size=1, max_size=6)


def distinct_chats(chats: list[list[str]]) -> int:
    """How many different chats `chats` holds, one an earlier state of another counted once."""
    kept: list[list[str]] = []
    for texts in chats:
        for i, other in enumerate(kept):
            if other[: len(texts)] == texts or texts[: len(other)] == other:
                kept[i] = max(other, texts, key=len)
                break
        else:
            kept.append(texts)
    return len(kept)


@given(chats=CHATS)
@settings(max_examples=draws(300), deadline=None)
def test_every_id_is_its_own_and_no_different_chat_is_lost(chats: list[list[str]]) -> None:
    out = distinct([chat(*texts) for texts in chats])
    assert len({c.source_id for c in out}) == len(out)
    assert len(out) >= min(distinct_chats(chats), 1)
    said = {tuple(m.text for m in c.messages) for c in out}
    # Every chat read is kept whole or as the start of one that is.
    assert all(any(s[: len(texts)] == tuple(texts) for s in said) for texts in chats)


def apart(chats: list[list[str]]) -> bool:
    """No chat is an earlier state of another."""
    return distinct_chats(chats) == len(chats)


@given(chats=CHATS, grow=st.integers(0, 5), more=st.lists(TEXTS, min_size=1, max_size=3))
@settings(max_examples=draws(300), deadline=None)
def test_a_chat_that_grows_keeps_every_id(
    chats: list[list[str]], grow: int, more: list[str]
) -> None:
    grown = [list(t) for t in chats]
    grown[grow % len(grown)] += more
    assume(apart(chats) and apart(grown))
    before = [c.source_id for c in distinct([chat(*t) for t in chats])]
    assert [c.source_id for c in distinct([chat(*t) for t in grown])] == before


def test_many_chats_under_one_name_take_time_linear_in_their_number() -> None:
    def seconds(n: int) -> float:
        chats = [chat("hi", f"answer {i}") for i in range(n)]
        start = time.perf_counter()
        distinct(chats)
        return time.perf_counter() - start

    small, large = min(seconds(2_000) for _ in range(3)), min(seconds(8_000) for _ in range(3))
    assert large < 6 * small + 0.05
