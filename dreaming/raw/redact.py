"""Secret redaction: every transcript passes through `redact` before it is stored or shortened.

The rules (`redact_rules`, judged by `redact_judge`) say what each kind looks like; this
applies them, and replaces private key blocks whole. Most messages hold no secret at
all, so a rule's regex only runs when one of its trigger substrings is in the text,
unless the regex itself starts at a literal rare enough to be found as fast.

Linear time on any input: every regex starts at a literal or a token start, every
repetition is possessive (`*+`, `{n,}+`: never gives back what it took) or bounded, and
no rule looks for anything after an unbounded run. So an attempt that fails costs a
bounded number of steps, and the text one that succeeds consumes is never scanned again.
"""

from __future__ import annotations

import re

from dreaming.raw.redact_rules import RULES, Rule

MARKER = "[REDACTED:"


# --- private keys ---------------------------------------------------------------------------

_OPENVPN = r"OpenVPN[A-Za-z0-9 -]{0,40} key(?: V1)?"
"""OpenVPN's static and tls-crypt keys: `-----BEGIN OpenVPN Static key V1-----`."""
_KEY_HEAD_RE = re.compile(
    rf"-{{4,5}} ?BEGIN(?:[A-Z0-9 ]{{0,40}} PRIVATE KEY(?: BLOCK)?| {_OPENVPN}) ?-{{4,5}}"
    r"|(?P<putty>Private-Lines: ?\d{1,4})"
)
_KEY_END_RE = re.compile(
    rf"-{{4,5}} ?END(?:[A-Z0-9 ]{{0,40}} PRIVATE KEY(?: BLOCK)?| {_OPENVPN}) ?-{{4,5}}"
)
_KEY_SPAN = 64 * 1024
_EOL = r"(?:\r?\n|\\r\\n|\\n)"
# A key cut off before its END line: the base64 (and `Name: value` armor) lines that follow.
_KEY_BODY_RE = re.compile(
    r"(?:[ \t]++[A-Za-z0-9+/=]++)*+"
    rf"(?:(?:[ \t]*+{_EOL})++[ \t]*+"
    r"(?:[A-Z][A-Za-z0-9-]{0,30}+:[ \t][^\n\\]{0,200}+|[A-Za-z0-9+/=]++)"
    rf"(?=[ \t]*+(?:{_EOL}|\Z)))*+"
)


def _private_keys(text: str) -> tuple[str, int]:
    """Replace whole private key blocks, or what is left of one that was cut off."""
    if "PRIVATE KEY" not in text and "Private-Lines:" not in text and "OpenVPN" not in text:
        return text, 0
    out: list[str] = []
    pos = 0
    end: re.Match[str] | None = None
    no_end_after = len(text) + 1  # no END line starts at or after this position
    nul = -1
    while (head := _KEY_HEAD_RE.search(text, pos)) is not None:
        stop = head.end()
        # Each search starts past the END line the previous one found: together they scan
        # the text once, however many headers there are.
        if end is not None and end.start() < stop:
            end = None
        if end is None and stop < no_end_after:
            end = _KEY_END_RE.search(text, stop)
            if end is None:
                no_end_after = stop
        if nul < stop:
            nul = text.find("\x00", stop)
            nul = len(text) if nul < 0 else nul
        if (
            head.group("putty") is None
            and end is not None
            and end.end() - head.start() <= _KEY_SPAN
            and end.start() < nul
        ):
            stop = end.end()
        else:
            body = _KEY_BODY_RE.match(text, stop)
            stop = body.end() if body else stop
        out += (text[pos : head.start()], "[REDACTED:private_key]")
        pos = stop
    if not out:
        return text, 0
    out.append(text[pos:])
    return "".join(out), len(out) // 2


KINDS = frozenset({"private_key", *(rule.kind for rule in RULES)})


# Every trigger, for one early look: most texts (tool lines, titles) hold none, and then
# no rule needs a look of its own.
_EXACT_TRIGGERS = tuple({t for r in RULES if r.folded is None for t in r.triggers})
_FOLDED_TRIGGERS = tuple({t for r in RULES if r.folded is not None for t in r.triggers})


def _apply(rule: Rule, text: str, hay: str) -> tuple[str, int]:
    """Redact what `rule` finds in `hay` (the text, or its lower-cased twin of equal length)."""
    pattern = rule.pattern
    if rule.folded is not None and len(hay) != len(text):
        pattern, hay = rule.folded, text
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(hay):
        # A span may end past its match (a value looked at, not taken): a match that
        # starts inside the span already replaced is skipped.
        if m.start() < pos:
            continue
        span = rule.secret(m, text)
        if span is not None:
            out += (text[pos : span[0]], f"{MARKER}{rule.kind}]")
            pos = span[1]
    if not out:
        return text, 0
    out.append(text[pos:])
    return "".join(out), len(out) // 2


def redact(text: str) -> tuple[str, int]:
    """Replace secrets with `[REDACTED:<kind>]`; returns the new text and how many."""
    if not text:
        return text, 0
    text, count = _private_keys(text)
    # Each trigger is looked for once, not once a rule: most texts (tool lines, titles)
    # hold none, and then no rule runs. Redaction only takes text away (markers hold no
    # secret), so a trigger missing now stays missing.
    exact = {t for t in _EXACT_TRIGGERS if t in text}
    first_low = text.lower()
    folded = {t for t in _FOLDED_TRIGGERS if t in first_low}
    low: str | None = first_low
    for rule in RULES:
        if rule.triggers and not any(t in (exact if rule.folded is None else folded)
                                     for t in rule.triggers):  # fmt: skip
            continue
        if rule.can_match is not None and not rule.can_match(text):
            continue
        if rule.folded is not None:
            if low is None:
                low = text.lower()
            hay = low
        else:
            hay = text
        text, n = _apply(rule, text, hay)
        if n:
            count += n
            low = None
    return text, count
