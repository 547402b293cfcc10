"""The explicit list of bash constructs the analysis understands.

Allowing a command (by a rule or as read-only) is only sound when we know
everything bash will do with the line. So the syntax tree is checked against
a list of node types whose meaning the analysis models completely; anything
else, including node types a future grammar adds, is "not understood" and
the line is asked about, with a reason naming the construct.

Some allowed node types are further restricted where they are used
(`expansion` only as a plain `${NAME}`, `simple_expansion` only of a
variable, test operators only where they do not evaluate arithmetic); those
checks live next to the code that interprets them (words.py, commands.py).
"""

from __future__ import annotations

# Node types whose meaning the analysis models.
UNDERSTOOD = frozenset(
    {
        # structure
        "program",
        "list",
        "pipeline",
        "redirected_statement",
        "subshell",
        "compound_statement",
        "negated_command",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "do_group",
        "case_statement",
        "case_item",
        "comment",
        # commands and their words
        "command",
        "command_name",
        "variable_assignment",
        "variable_assignments",
        "word",
        "number",
        "string",
        "string_content",
        "raw_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "variable_name",
        "special_variable_name",
        "command_substitution",
        "process_substitution",
        "brace_expression",
        # redirections
        "file_redirect",
        "file_descriptor",
        "heredoc_redirect",
        "heredoc_start",
        "heredoc_body",
        "heredoc_content",
        "heredoc_end",
        "herestring_redirect",
        # [ ... ] and [[ ... ]] (operators checked in commands.py)
        "test_command",
        "unary_expression",
        "binary_expression",
        "parenthesized_expression",
        "test_operator",
        "regex",
        "extglob_pattern",
    }
)

# Why the most common constructs outside the list are not understood.
_WHY = {
    "arithmetic_expansion": "arithmetic on names (`$((x+1))`, `$[...]`, `((...))`) can run "
    "code through array subscripts; only integer literals are understood",
    "c_style_for_statement": "a C-style `for ((...))` loop evaluates arithmetic",
    "function_definition": "it defines a shell function",
    "declaration_command": "`declare`/`export`/`local`/`readonly`/`typeset` change variables "
    "and the environment of later commands",
    "unset_command": "`unset` changes variables later commands see",
    "ansi_c_string": "`$'...'` strings are not modelled",
    "translated_string": '`$"..."` strings are not modelled',
    "subscript": "array subscripts are evaluated as arithmetic",
    "array": "array assignments are not modelled",
    "postfix_expression": "arithmetic is not modelled",
    "ternary_expression": "arithmetic is not modelled",
}


def not_understood_reason(node_type: str, text: str) -> str:
    """A sentence for the person: which construct was not understood, and why it matters."""
    shown = text if len(text) <= 40 else text[:39] + "…"
    why = _WHY.get(node_type)
    if why:
        return f"`{shown}`: {why}"
    return f"`{shown}` is a shell construct ({node_type}) agentcli does not model"
