"""check_page: a Meta page is put in force only when the code that reads it can use it."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article.fences import fence_blocks, split_lines
from dreaming.policy.checks import MAX_BYTES, OPTIONAL_BLOCKS, PAGES, REQUIRED_BLOCKS, check_page
from stages.segment.plan import Rules, parse_rules
from tests.support import REPO, best_seconds, draws

META = REPO / "meta_templates"


def shipped(name: str) -> str:
    return (META / f"{name}.md").read_text(encoding="utf-8")


def edited(name: str, old: str, new: str) -> bytes:
    text = shipped(name)
    assert old in text
    return text.replace(old, new, 1).encode("utf-8")


def only(problems: list[str]) -> str:
    assert len(problems) == 1, problems
    return problems[0]


@pytest.mark.parametrize("name", PAGES)
def test_every_shipped_page_passes(name: str) -> None:
    assert check_page(name, shipped(name).encode("utf-8")) == []


def test_the_required_and_optional_blocks_are_the_ones_the_shipped_pages_have() -> None:
    found = {}
    for path in sorted(META.glob("*.md")):
        lines = split_lines(path.read_text(encoding="utf-8"))
        found[path.stem] = tuple(dict.fromkeys(b.label for b in fence_blocks(lines) if b.label))
    expected = {k: v + OPTIONAL_BLOCKS.get(k, ()) for k, v in REQUIRED_BLOCKS.items()}
    assert found == expected


def test_a_page_that_is_not_policy_has_no_problems() -> None:
    assert check_page("My_Notes", b"\0\xff anything") == []


def test_an_empty_page_is_refused() -> None:
    assert "Meta/Chunking.md: is empty;" in only(check_page("Chunking", b" \n\n"))


def test_a_binary_page_is_refused() -> None:
    problem = only(check_page("Chunking", shipped("Chunking").encode() + b"\0\x01\x02"))
    assert problem.startswith("Meta/Chunking.md: holds binary data")


def test_a_page_that_is_not_utf8_is_refused() -> None:
    problem = only(check_page("Chunking", b"---\n\xff\xfe\n"))
    assert problem == "Meta/Chunking.md: not UTF-8 text; save it as UTF-8"


def test_a_10_mb_page_is_refused_without_being_decoded() -> None:
    # Invalid UTF-8 at the very end: a check that decoded it would report that instead.
    huge = shipped("Chunking").encode() + b"x" * (10 * 1024 * 1024) + b"\xff"
    start = time.perf_counter()
    problem = only(check_page("Chunking", huge))
    assert time.perf_counter() - start < 0.05
    assert f"larger than the {MAX_BYTES // 1024} KiB a policy page may hold" in problem


def test_a_page_without_frontmatter_is_refused() -> None:
    text = shipped("Bucketing").split("---\n", 2)[2].encode()
    assert "has no frontmatter" in only(check_page("Bucketing", text))


def test_frontmatter_that_is_not_yaml_is_refused() -> None:
    data = edited("Bucketing", "page: Bucketing\n", "page: [Bucketing\n")
    assert "the frontmatter is not valid YAML" in only(check_page("Bucketing", data))


def test_frontmatter_that_is_not_a_mapping_is_refused() -> None:
    data = b"---\n- a\n- b\n---\n# Bucketing\n"
    assert "not a list of `key: value` lines" in only(check_page("Bucketing", data))


def test_frontmatter_must_say_it_is_policy_for_this_page() -> None:
    data = edited("Bucketing", "dreaming: policy\npage: Bucketing\n", "page: Chunking\n")
    problems = check_page("Bucketing", data)
    assert [p.split(";")[0] for p in problems] == [
        "Meta/Bucketing.md: the frontmatter lacks `dreaming: policy`",
        "Meta/Bucketing.md: the frontmatter lacks `page: Bucketing`",
    ]


def test_an_unclosed_frontmatter_is_refused() -> None:
    data = b"---\ndreaming: policy\npage: Bucketing\n# Bucketing\n"
    assert "the frontmatter is unclosed" in only(check_page("Bucketing", data))


def test_a_page_without_an_h1_is_refused() -> None:
    data = edited("Bucketing", "# Bucketing\n", "## Bucketing\n")
    assert "has no H1 title line; add `# Bucketing`" in only(check_page("Bucketing", data))


def test_an_h1_inside_a_code_block_is_not_the_title() -> None:
    data = edited("Bucketing", "# Bucketing\n", "```\n# Bucketing\n```\n")
    assert "has no H1" in only(check_page("Bucketing", data))


def test_a_missing_ignore_block_is_refused() -> None:
    text = shipped("Topics_to_Ignore")
    data = text[: text.index("```ignore")].encode()
    assert "the ```ignore block is missing" in only(check_page("Topics_to_Ignore", data))


def test_an_ignore_block_the_readers_would_not_find_is_refused() -> None:
    data = edited("Topics_to_Ignore", "```ignore\n", "  ```ignore\n")
    assert "must open with ```ignore at the start of a line" in only(
        check_page("Topics_to_Ignore", data)
    )


def test_an_ignore_pattern_that_matches_everything_is_refused() -> None:
    data = edited("Topics_to_Ignore", "# <topic phrase>\n", "* *\n")
    assert "matches every chunk" in only(check_page("Topics_to_Ignore", data))


def test_ignore_patterns_are_accepted() -> None:
    data = edited("Topics_to_Ignore", "# <topic phrase>\n", "weather\ndinner * plans\n")
    assert check_page("Topics_to_Ignore", data) == []


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("max_messages: 500", "max_messages: 1", "min_messages (2) must be at least 1"),
        ("min_messages: 2", "min_messages: 0", "min_messages (0) must be at least 1"),
        ("label_max_words: 10", "label_max_words: 3", "label_min_words (4) must be at least 1"),
        ("max_messages: 500", "max_messages: lots", "`max_messages: lots` is not"),
        ("max_messages: 500", "max_messages: ²", "`max_messages: ²` is not"),
        ("max_messages: 500", "max_mesages: 500", "`max_mesages: 500` is not"),
    ],
)
def test_broken_chunking_limits_are_refused(old: str, new: str, why: str) -> None:
    assert why in only(check_page("Chunking", edited("Chunking", old, new)))


def test_chunking_limits_the_check_accepts_are_the_ones_segment_reads() -> None:
    data = edited("Chunking", "max_messages: 500", "max_messages: 40\n# a comment")
    assert check_page("Chunking", data) == []
    assert parse_rules(data.decode()) == Rules(2, 40, 4, 10)


def test_an_alias_line_without_an_arrow_is_refused() -> None:
    data = edited("Entities", "# <Other name> => <Canonical Title>\n", "k8s = Kubernetes\n")
    assert "`k8s = Kubernetes` is not" in only(check_page("Entities", data))


def test_a_real_alias_is_data_not_a_leak() -> None:
    data = edited("Entities", "# <Other name> => <Canonical Title>\n", "k8s => Kubernetes\n")
    assert check_page("Entities", data) == []


def test_the_captured_bucket_cannot_be_removed() -> None:
    data = edited("Buckets", "_captured\n```", "```")
    assert "lacks `_captured`" in only(check_page("Buckets", data))


def test_a_schema_line_of_an_unknown_type_is_refused() -> None:
    data = edited("Infobox_Schemas", "used_for: text\nowned", "used_for: number\nowned")
    assert "`used_for: number` is not" in only(check_page("Infobox_Schemas", data))


def test_a_schema_block_must_name_its_kind() -> None:
    data = edited("Infobox_Schemas", "kind: thing\n", "")
    problem = only(check_page("Infobox_Schemas", data))
    assert "starts with `type: text`; start it with `kind: <kind>`" in problem


@pytest.mark.parametrize(
    ("name", "old", "new", "value"),
    [
        (
            "Entities",
            "a chunk about `<Thing A>` names `<Thing A>` and `<Domain of Thing A>`",
            "a chunk about `Raspberry Pi` names `Raspberry Pi` and `Computing`",
            "`Raspberry Pi`",
        ),
        (
            "Editorial_Guidelines",
            "prefers `<Thing A>` for `<purpose>`",
            "prefers `<Thing A>` for `home automation`",
            "`home automation`",
        ),
        ("Article_Conventions", "- `# <Title>`: the file", "- `# Kubernetes`: the file", None),
    ],
)
def test_a_real_value_in_a_schematic_example_is_refused(
    name: str, old: str, new: str, value: str | None
) -> None:
    problem = only(check_page(name, edited(name, old, new)))
    assert "the example shows the real value" in problem
    assert "put the placeholder back" in problem
    if value is not None:
        assert value in problem


def test_an_example_reworded_around_its_placeholders_is_accepted() -> None:
    data = edited(
        "Entities",
        "a chunk about `<Thing A>` names `<Thing A>` and `<Domain of Thing A>`",
        "a chunk about `<Thing B>` names `<Thing B>` and `<Domain>`",
    )
    assert check_page("Entities", data) == []


def test_a_removed_example_is_accepted() -> None:
    data = edited("Editorial_Guidelines", "- State the fact", "- Removed: state the fact")
    assert check_page("Editorial_Guidelines", data) == []


@settings(max_examples=draws(300), deadline=None)
@given(st.sampled_from(PAGES), st.binary(max_size=4096))
def test_check_page_never_raises_on_arbitrary_bytes(name: str, data: bytes) -> None:
    assert all(isinstance(p, str) and "\n" not in p for p in check_page(name, data))


@settings(max_examples=draws(300), deadline=None)
@given(st.sampled_from(PAGES), st.data())
def test_check_page_never_raises_on_a_mangled_shipped_page(name: str, data: st.DataObject) -> None:
    text = shipped(name)
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 40))
    junk = data.draw(st.text(alphabet="`-#:<>*_=\n\r ~[]{}'\"abc", max_size=40))
    mangled = text[:at] + junk + text[at + cut :]
    assert all("\n" not in p for p in check_page(name, mangled.encode("utf-8")))


N = 200
FLOOR_S = 0.05
MAX_RATIO = 64.0
ENTITIES_EXAMPLE = "- Name the specific thing and its broad domain: a chunk about `"

CASES: dict[str, tuple[str, Callable[[int], str]]] = {
    "unclosed frontmatter": ("Chunking", lambda n: "---\n" + "a: b\n" * n),
    "nested frontmatter": ("Chunking", lambda n: "---\nx: " + "[" * n + "\n---\n# C\n"),
    "frontmatter nested in dashes": ("Chunking", lambda n: "---\nx:\n" + "- " * n + "\n---\n"),
    "unclosed fences": ("Chunking", lambda n: shipped("Chunking") + "```settings\n" * n),
    "settings lines": (
        "Chunking",
        lambda n: shipped("Chunking").replace("min_messages: 2\n", "x: ²\n" * n),
    ),
    "example prefixes": ("Entities", lambda n: shipped("Entities") + ENTITIES_EXAMPLE * n),
    "example pieces": (
        "Entities",
        lambda n: shipped("Entities") + ENTITIES_EXAMPLE + "` names `" * n + "`.\n",
    ),
    "example lines": ("Entities", lambda n: shipped("Entities") + (ENTITIES_EXAMPLE + "x\n") * n),
    "angle brackets": ("Entities", lambda n: shipped("Entities") + "<" * n + "\n"),
    "schema fields": (
        "Infobox_Schemas",
        lambda n: shipped("Infobox_Schemas").replace(
            "owned: text\n", "".join(f"f{i}: text\n" for i in range(4 * n))
        ),
    ),
}


@pytest.mark.slow  # real timing against input size
@pytest.mark.parametrize("case", CASES)
def test_check_page_runs_in_linear_time(case: str) -> None:
    name, make = CASES[case]

    def check(text: str) -> object:
        return check_page(name, text.encode("utf-8"))

    sizes = [make(n) for n in (N, 4 * N, 16 * N)]
    assert len(sizes[-1].encode()) <= MAX_BYTES
    times = [best_seconds(check, text) for text in sizes]
    ratio = times[2] / max(times[0], 1e-6)
    assert times[2] < FLOOR_S or ratio < MAX_RATIO, f"{case}: 16N took {ratio:.0f}x N ({times})"


def test_frontmatter_nested_in_dashes_is_refused_not_raised() -> None:
    data = shipped("Chunking").replace("---\n", "---\nx:\n" + "- " * 3000 + "y\n", 1)
    assert "the frontmatter is nested too deeply" in only(check_page("Chunking", data.encode()))


def test_a_renamed_schema_kind_is_the_page_s_choice() -> None:
    data = edited("Infobox_Schemas", "kind: thing\n", "kind: gadget\n")
    assert check_page("Infobox_Schemas", data) == []


def test_a_schema_kind_declared_twice_is_refused() -> None:
    data = edited("Infobox_Schemas", "kind: person\n", "kind: thing\n")
    assert "the kind `thing` has 2 schema blocks; keep one" in only(
        check_page("Infobox_Schemas", data)
    )


def test_a_schema_field_listed_twice_is_refused() -> None:
    data = edited("Infobox_Schemas", "owned: text\n", "owned: text\nowned: list\n")
    assert "the field `owned` is listed 2 times" in only(check_page("Infobox_Schemas", data))


def test_a_reserved_bucket_name_must_be_lower_case_after_its_underscore() -> None:
    data = edited("Buckets", "_captured\n", "_captured\n_Mine\n")
    assert "`_Mine` is not `_` and lower-case" in only(check_page("Buckets", data))
