"""What `[[ ]]`, `[ ]` and `test` evaluate: the names `-v` tests and `-eq`'s operands.

Two places in a test run code through arithmetic:
- `-v NAME` (and `-R NAME`) with a subscript: `[[ -v 'a[$(cmd)]' ]]`,
  `test -v 'a[$(cmd)]'` and `[ -v ... ]` evaluate `$(cmd)` while looking the
  element up. A test is understood only when every name it may test is a
  plain name or has a literal subscript (`a[3]`, `a[@]`).
- `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge` inside `[[ ]]` evaluate both
  operands as arithmetic, names included (`[[ x -eq 1 ]]` evaluates `x`,
  whose value may hold `a[$(cmd)]`): each operand must expand to integer
  literals. `test` and `[` compare integers without evaluating them, so
  there these operators are fine.

`[[ ]]` does not split words, so its structure is the parser's. `test` and
`[` see fields after splitting: a word not known before the line runs may
be `-v` itself, or several fields; so a possible `-v` (a known `-v`/`-R`,
or an unknown field) must be followed only by fields known to be harmless,
and an unquoted unknown word (which may become `-v NAME`) is not understood.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agentcli.permissions.shell.arithmetic import is_literal_subscript, literal_value
from agentcli.permissions.shell.text import short
from agentcli.permissions.shell.words import Word

NAME_TESTS = frozenset({"-v", "-R"})
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
TEST_BUILTINS = frozenset({"test", "["})


@dataclass(frozen=True, slots=True)
class Field:
    """One argument `test` gets: its value, or None when it is not known."""

    value: str | None
    many: bool = False  # not known, and may be several fields (an unquoted expansion)


def fields_of(words: Iterable[Word]) -> list[Field]:
    out: list[Field] = []
    for word in words:
        if word.values is None:
            out.append(Field(None, many=not word.one_field))
        else:
            out.extend(Field(value) for value in word.values)
    return out


def name_test_problem(operator: str, operand: Word) -> str | None:
    """`[[ -v NAME ]]`: NAME must be known and its subscript (if any) literal."""
    values = operand.values
    if values is None or len(values) != 1 or not is_literal_subscript(values[0]):
        return _name_reason(operator, operand.text)
    return None


def arithmetic_test_problem(operator: str, operands: Sequence[Word]) -> str | None:
    """`[[ L -eq R ]]`: both sides evaluate as arithmetic, so both must be literals."""
    for operand in operands:
        values = operand.values
        if values is None or len(values) != 1 or literal_value(values[0]) is None:
            return (
                f"`{short(operand.text)} {operator}` in `[[ ]]` evaluates `{short(operand.text)}` "
                "as arithmetic, which can run code through names and subscripts; only "
                "integer literals are understood"
            )
    return None


def test_builtin_problem(fields: Sequence[Field]) -> str | None:
    """`test ARGS` / `[ ARGS ]`: could any argument be `-v` with a subscript that runs code?"""
    for index, field in enumerate(fields):
        if field.many:
            return (
                "`test` gets a word that is not known before it runs and may become "
                "several arguments (such as `-v NAME[...]`, which can run code)"
            )
        if field.value is not None and field.value not in NAME_TESTS:
            continue
        for later in fields[index + 1 :]:
            if later.value is None or (
                "[" in later.value and not is_literal_subscript(later.value)
            ):
                shown = later.value if later.value is not None else "…"
                return _name_reason(field.value or "-v", shown)
    return None


def _name_reason(operator: str, text: str) -> str:
    return (
        f"`{operator} {short(text)}` tests a name whose subscript bash evaluates, which can "
        "run code; only plain names and literal subscripts are understood"
    )
