"""Reading a program's options as getopt does, from a list of what each one takes.

Wrappers (`sudo`, `su`, `flock`, `watch`...) decide what they run by their
options: `su -c STRING` runs a shell script, `sudo -u root cmd` runs cmd,
`flock -w 5 FILE cmd` runs cmd. To know where the command starts, every
option must be known: a flag, an option with a value (`-u root`, `-uroot`,
`--user root`, `--user=root`) or one whose value is optional and attached
(`-d`, `-dpermanent`, `--differences=permanent`). Long options may be
abbreviated to any unique prefix, as getopt_long allows (`--comm` is
`--command`). Anything else, or a word not known before the line runs, means
the options are not understood (None), and the caller says so.

`permute`: GNU getopt's default order, where options may follow operands
(`su root -c x`); otherwise options end at the first operand (getopt's `+`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

Arg = str | None  # None: words not known before the line runs (zero or more)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    flags: frozenset[str] = frozenset()  # take no value
    values: frozenset[str] = frozenset()  # take a value: attached or the next word
    optional: frozenset[str] = frozenset()  # take a value only when attached
    permute: bool = False
    dash_is_operand: bool = True  # a lone `-` is an operand (for su it is an option)

    def longs(self) -> list[str]:
        return sorted(o for o in self.flags | self.values | self.optional if o.startswith("--"))


def spec(
    flags: Iterable[str] = (),
    values: Iterable[str] = (),
    optional: Iterable[str] = (),
    *,
    permute: bool = False,
    dash_is_operand: bool = True,
) -> OptionSpec:
    return OptionSpec(
        frozenset(flags), frozenset(values), frozenset(optional), permute, dash_is_operand
    )


@dataclass(slots=True)
class Parsed:
    options: list[tuple[str, str | None]] = field(default_factory=list)  # (name, value)
    operands: list[Arg] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        return any(name in names for name, _value in self.options)

    def value(self, *names: str) -> str | None:
        """The last value given to any of these options (getopt keeps the last)."""
        found = None
        for name, value in self.options:
            if name in names:
                found = value
        return found


def parse_options(words: tuple[Arg, ...], option_spec: OptionSpec) -> Parsed | None:
    """The options and operands of `words`; None when an option is not understood."""
    out = Parsed()
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            return None  # may be any option, or several words
        if word == "--":
            out.operands.extend(words[i + 1 :])
            return out
        if word == "-" and not option_spec.dash_is_operand:
            out.options.append(("-", None))
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            if not option_spec.permute:
                out.operands.extend(words[i:])
                return out
            out.operands.append(word)
            i += 1
            continue
        step = (
            _long(words, i, option_spec, out)
            if word.startswith("--")
            else _short(words, i, option_spec, out)
        )
        if step is None:
            return None
        i += step
    return out


def _long(words: tuple[Arg, ...], i: int, s: OptionSpec, out: Parsed) -> int | None:
    word = words[i] or ""
    given, eq, attached = word.partition("=")
    name = _resolve(given, s)
    if name is None:
        return None
    if name in s.flags:
        if eq:
            return None
        out.options.append((name, None))
        return 1
    if name in s.optional:
        out.options.append((name, attached if eq else None))
        return 1
    if eq:
        out.options.append((name, attached))
        return 1
    return _next_word_value(words, i, name, out)


def _next_word_value(words: tuple[Arg, ...], i: int, name: str, out: Parsed) -> int | None:
    """`--user root`, `-u root`: the option takes the next word (two words in all)."""
    if i + 1 >= len(words) or words[i + 1] is None:
        return None
    out.options.append((name, words[i + 1]))
    return 2


def _resolve(given: str, s: OptionSpec) -> str | None:
    known = s.flags | s.values | s.optional
    if given in known:
        return given
    matches = [name for name in s.longs() if name.startswith(given)]
    return matches[0] if len(matches) == 1 else None


def _short(words: tuple[Arg, ...], i: int, s: OptionSpec, out: Parsed) -> int | None:
    word = words[i] or ""
    for index in range(1, len(word)):
        name = "-" + word[index]
        attached = word[index + 1 :]
        if name in s.flags:
            out.options.append((name, None))
            continue
        if name in s.optional:
            out.options.append((name, attached or None))
            return 1
        if name in s.values:
            if attached:
                out.options.append((name, attached))
                return 1
            return _next_word_value(words, i, name, out)
        return None
    return 1
