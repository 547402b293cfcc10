"""A deterministic, realistic markdown answer for the streaming benchmark.

Shaped like a long answer from a coding agent: headings, prose with inline
code, bold and links, bullet lists (some nested), numbered lists, tables and
fenced code in Python, JavaScript and Bash.
"""

from __future__ import annotations

import random

_PROSE = (
    "the request handler reads each file once and caches the parsed result so that "
    "later calls return quickly while the worker pool keeps the queue short and the "
    "session state stays consistent across retries when the server answers slowly we "
    "measure latency per call and compare it with the budget before changing anything "
    "in the configuration loader or the token counter"
)
_WORDS = _PROSE.split()
_NAMES = ["config", "session", "parser", "worker", "buffer", "index", "client", "cache"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randrange(8, 20))]
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(_NAMES)}.{rng.choice(_NAMES)}()`")
    if rng.random() < 0.25:
        words.insert(rng.randrange(len(words)), f"**{rng.choice(_WORDS)}**")
    if rng.random() < 0.1:
        words.insert(
            rng.randrange(len(words)),
            f"[{rng.choice(_NAMES)}](https://example.com/{rng.choice(_NAMES)})",
        )
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randrange(2, 6))) + "\n"


def _bullets(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randrange(3, 7)):
        lines.append(f"- {_sentence(rng)}")
        if rng.random() < 0.3:
            lines.extend(f"  - {_sentence(rng)}" for _ in range(rng.randrange(1, 3)))
    return "\n".join(lines) + "\n"


def _numbered(rng: random.Random) -> str:
    return "\n".join(f"{n}. {_sentence(rng)}" for n in range(1, rng.randrange(3, 7))) + "\n"


def _table(rng: random.Random) -> str:
    columns = rng.randrange(3, 5)
    header = "| " + " | ".join(rng.choice(_NAMES).title() for _ in range(columns)) + " |"
    rule = "|" + "|".join("---" for _ in range(columns)) + "|"
    rows = [
        "| "
        + " | ".join(f"`{rng.choice(_NAMES)}` {rng.randrange(1000)}" for _ in range(columns))
        + " |"
        for _ in range(rng.randrange(3, 8))
    ]
    return "\n".join([header, rule, *rows]) + "\n"


def _python(rng: random.Random) -> str:
    name = rng.choice(_NAMES)
    lines = [f"def load_{name}(path: str, retries: int = {rng.randrange(1, 5)}) -> dict:"]
    lines.append(f'    """Read the {name} and return it as a dict."""')
    for i in range(rng.randrange(3, 12)):
        lines.append(
            f"    value_{i} = {rng.choice(_NAMES)}.get({rng.choice(_NAMES)!r}, {rng.randrange(100)})"
        )
    lines.append(f"    return {{'{name}': value_0}}")
    return "```python\n" + "\n".join(lines) + "\n```\n"


def _javascript(rng: random.Random) -> str:
    name = rng.choice(_NAMES)
    lines = [f"export async function fetch{name.title()}(id) {{"]
    for i in range(rng.randrange(3, 10)):
        lines.append(f"  const item{i} = await {rng.choice(_NAMES)}.get(`/api/{name}/${{id}}`);")
    lines.append("  return item0 ?? null;")
    lines.append("}")
    return "```js\n" + "\n".join(lines) + "\n```\n"


def _bash(rng: random.Random) -> str:
    lines = [
        f"cd src/{rng.choice(_NAMES)}",
        f"grep -rn '{rng.choice(_NAMES)}' . | head -{rng.randrange(5, 50)}",
        f"python -m pytest -q tests/test_{rng.choice(_NAMES)}.py",
    ]
    return "```bash\n" + "\n".join(lines[: rng.randrange(1, 4)]) + "\n```\n"


def make_markdown(size: int, seed: int = 20240601) -> str:
    """About `size` characters of markdown, the same for the same seed."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    section = 0
    makers = [
        _paragraph,
        _paragraph,
        _paragraph,
        _bullets,
        _numbered,
        _table,
        _python,
        _javascript,
        _bash,
    ]
    while total < size:
        if section == 0 or rng.random() < 0.12:
            section += 1
            block = f"## {section}. {_sentence(rng)[:-1]}\n"
        elif rng.random() < 0.08:
            block = f"### {_sentence(rng)[:40]}\n"
        else:
            block = rng.choice(makers)(rng)
        parts.append(block)
        total += len(block) + 1
    return "\n".join(parts)[:size]


def chunked(text: str, size: int) -> list[str]:
    """The text cut into pieces of `size` characters, as a model would stream it."""
    return [text[i : i + size] for i in range(0, len(text), size)]
