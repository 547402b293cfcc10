"""Bash arithmetic on integer literals: evaluated here, so `$((40+2))` is the word `42`.

Bash evaluates arithmetic in `$((...))`, `$[...]`, `((...))`, `let`, the
operands of `-eq`-style tests inside `[[ ]]`, and array subscripts. A *name*
in such an expression is looked up and its value evaluated again, and a
subscript expands `$(...)`: `a[$(cmd)]` runs cmd. So the analysis only
understands expressions made of integer literals and operators; anything
else (a name, `$`, a quote, `++`, an assignment) is "not literal" and the
caller asks.

The evaluation follows bash's rules for what it accepts: 64-bit signed
integers that wrap, `/` and `%` truncating toward zero, `**` with a
non-negative exponent, numbers in decimal, octal (`017`), hex (`0x1f`) and
`BASE#DIGITS` (2 to 64), `&&`, `||` and `?:` evaluating only the branch bash
evaluates. What bash would reject (division by zero, a digit too big for its
base, a shift by 64 or more, which C leaves undefined) is "not literal" too,
never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BITS = 64
_MASK = (1 << _BITS) - 1
_TOKEN = re.compile(
    r"\s*(?:(?P<number>[0-9][0-9A-Za-z_@#]*)|(?P<op>\+\+|--|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&|^!~?:(),])|(?P<other>\S))"
)
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"
# Binary operators, loosest first (bash's precedence; `?:` and `,` are handled apart).
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<=", ">=", "<", ">"),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)


class NotLiteral(Exception):
    """The expression names a variable, expands something, or is not valid bash."""


def literal_value(expression: str) -> int | None:
    """The value bash computes for `expression`, or None when it is not all literals."""
    try:
        return _Parser(_tokens(expression)).whole()
    except NotLiteral:
        return None


def is_literal_subscript(text: str) -> bool:
    """`name` or `name[literal]` (`@`/`*` too): what `-v` may test without running code."""
    match = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\[(.*)\])?", text, re.DOTALL)
    if match is None:
        return False
    subscript = match.group(1)
    return subscript is None or subscript in ("@", "*") or literal_value(subscript) is not None


def _wrap(value: int) -> int:
    value &= _MASK
    return value - (1 << _BITS) if value >> (_BITS - 1) else value


def _tokens(expression: str) -> list[str]:
    out: list[str] = []
    position = 0
    while position < len(expression):
        if expression[position:].strip() == "":
            break
        match = _TOKEN.match(expression, position)
        if match is None or match.group("other") is not None:
            raise NotLiteral(expression)
        out.append(match.group("number") or match.group("op"))
        position = match.end()
    return out


def _number(text: str) -> int:
    if "#" in text:
        base_text, _, digits = text.partition("#")
        if not base_text.isdigit() or not digits:
            raise NotLiteral(text)
        base = int(base_text)
        if not 2 <= base <= 64:
            raise NotLiteral(text)
    elif text[:2] in ("0x", "0X"):
        base, digits = 16, text[2:]
    elif text.startswith("0") and len(text) > 1:
        base, digits = 8, text[1:]
    else:
        base, digits = 10, text
    value = 0
    for char in digits:
        # Up to base 36 letters of either case are the same digit, as in bash.
        digit = _DIGITS.find(char.lower() if base <= 36 else char)
        if digit < 0 or digit >= base:
            raise NotLiteral(text)
        value = value * base + digit
    return _wrap(value)


@dataclass(slots=True)
class _Parser:
    tokens: list[str]
    index: int = 0

    def peek(self) -> str | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise NotLiteral(expected or "end")
        self.index += 1
        return token

    def whole(self) -> int:
        if not self.tokens:
            return 0  # `$(( ))` is 0 in bash
        value = self.comma(True)
        if self.peek() is not None:
            raise NotLiteral(self.peek() or "")
        return value

    def comma(self, live: bool) -> int:
        value = self.ternary(live)
        while self.peek() == ",":
            self.take()
            value = self.ternary(live)
        return value

    def ternary(self, live: bool) -> int:
        condition = self.binary(0, live)
        if self.peek() != "?":
            return condition
        self.take()
        first = self.comma(live and condition != 0)
        self.take(":")
        second = self.ternary(live and condition == 0)
        return first if condition else second

    def binary(self, level: int, live: bool) -> int:
        if level == len(_LEVELS):
            return self.power(live)
        left = self.binary(level + 1, live)
        while self.peek() in _LEVELS[level]:
            op = self.take()
            if op in ("&&", "||"):
                # Bash does not evaluate the right side it does not need.
                needed = live and ((left != 0) if op == "&&" else (left == 0))
                right = self.binary(level + 1, needed)
                left = int(bool(left) and bool(right)) if op == "&&" else int(bool(left or right))
                continue
            right = self.binary(level + 1, live)
            left = _apply(op, left, right, live)
        return left

    def power(self, live: bool) -> int:
        base = self.unary(live)
        if self.peek() != "**":
            return base
        self.take()
        exponent = self.power(live)  # right-associative
        if not live:
            return 0
        if exponent < 0:
            raise NotLiteral("exponent less than 0")
        return _wrap(pow(base, exponent, 1 << _BITS))

    def unary(self, live: bool) -> int:
        token = self.peek()
        if token in ("+", "-", "!", "~"):
            self.take()
            value = self.unary(live)
            if token == "-":
                return _wrap(-value)
            if token == "!":
                return int(value == 0)
            if token == "~":
                return _wrap(~value)
            return value
        if token == "(":
            self.take()
            value = self.comma(live)
            self.take(")")
            return value
        if token is None or not token[0].isdigit():
            raise NotLiteral(token or "end")
        self.take()
        return _number(token)


def _apply(op: str, left: int, right: int, live: bool) -> int:
    if op in ("/", "%"):
        if right == 0:
            if not live:
                return 0
            raise NotLiteral("division by 0")
        quotient = abs(left) // abs(right)
        if (left < 0) != (right < 0):
            quotient = -quotient
        return _wrap(quotient) if op == "/" else _wrap(left - right * quotient)
    if op in ("<<", ">>"):
        if not 0 <= right < _BITS:
            if not live:
                return 0
            raise NotLiteral("shift count out of range")
        return _wrap(left << right) if op == "<<" else left >> right
    results = {
        "+": lambda: left + right,
        "-": lambda: left - right,
        "*": lambda: left * right,
        "&": lambda: left & right,
        "|": lambda: left | right,
        "^": lambda: left ^ right,
        "==": lambda: int(left == right),
        "!=": lambda: int(left != right),
        "<": lambda: int(left < right),
        ">": lambda: int(left > right),
        "<=": lambda: int(left <= right),
        ">=": lambda: int(left >= right),
    }
    return _wrap(results[op]())
