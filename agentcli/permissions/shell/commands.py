"""Every simple command a line runs, with its arguments, redirects and folder.

The walker goes through the syntax tree in the order bash runs it and
records each simple command, wherever it is: in a list or pipeline, in
`$(...)`, backticks or `<(...)`, in a here-document that expands, in the
branches of `if`/`case`/loops, behind wrappers (`timeout`, `xargs`,
`find -exec`, `bash -c '...'`, see wrappers.py).

It also follows what earlier commands of the same line change for later
ones, because that is where a command really lands:
- the folder: `cd`/`pushd` move it (also into a parent or a variable's
  value); a change inside a pipeline element or `( ... )` stays there; a
  branch that may or may not run leaves several possible folders; `cd -`,
  `popd` or a folder that cannot be known leave it unknown;
- variables: a plain `name=value` is remembered for later `$name`.

What the walker does not model is collected as `problems` (one sentence
each): the line can then not be allowed by a rule nor as read-only, but the
commands found are still there for deny and ask rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentcli.permissions.shell.arithmetic import literal_value
from agentcli.permissions.shell.cmdstrings import command_strings
from agentcli.permissions.shell.constructs import UNDERSTOOD, not_understood_reason
from agentcli.permissions.shell.folders import cd_target, copy_scope, merge_scopes
from agentcli.permissions.shell.model import Command, Redirect, Walk
from agentcli.permissions.shell.parse import Node, parse
from agentcli.permissions.shell.shellstate import name_problems
from agentcli.permissions.shell.testexpr import (
    ARITHMETIC_TESTS,
    NAME_TESTS,
    Field,
    arithmetic_test_problem,
    fields_of,
    name_test_problem,
    test_builtin_problem,
)
from agentcli.permissions.shell.words import (
    NotUnderstood,
    Scope,
    Word,
    expand_heredoc,
    expand_word,
)
from agentcli.permissions.shell.wrappers import Arg, unwrap

MAX_DEPTH = 8  # nested `bash -c` scripts
MAX_LOOP_VALUES = 16  # a `for` loop over more values leaves its variable unknown
_LOWER_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def walk_line(source: str, scope: Scope) -> Walk:
    result = Walk()
    try:
        _Walker(result, 0).script(source, scope)
    except RecursionError:
        result.problems.append("the command is nested too deeply to check")
    return result


@dataclass(slots=True)
class _Walker:
    out: Walk
    depth: int
    sink: list[Command] | None = None  # where commands go (a wrapper's inner list)

    def problem(self, text: str) -> None:
        if text not in self.out.problems:
            self.out.problems.append(text)

    def record(self, command: Command) -> None:
        (self.sink if self.sink is not None else self.out.commands).append(command)

    # -- whole scripts ----------------------------------------------------------------

    def script(self, source: str, scope: Scope) -> None:
        if "\0" in source or "\r" in source:
            self.problem("the command holds a NUL or carriage-return character")
        tree = parse(source)
        if tree.has_error or tree.gaps:
            self.problem("bash would not read the command the way agentcli's parser does")
        if tree.joined:
            self.problem("a `\\` at the end of a line joins two words into one")
        self.node(tree.root, scope)

    # -- statements -----------------------------------------------------------------

    def node(self, node: Node, scope: Scope, pending: tuple[Node, ...] = ()) -> Scope:
        """Walk one statement; returns the scope after it. `pending`: its trailing redirects."""
        kind = node.type
        if node.missing or kind == "ERROR":
            self.problem("the command is incomplete or malformed")
            return self.children(node, scope)
        if kind not in UNDERSTOOD:
            self.problem(not_understood_reason(kind, node.text))
            return self.children(node, scope)
        method = getattr(self, "_" + kind, None)
        if method is None:
            return self.children(node, scope)
        after: Scope = method(node, scope, pending)
        return after

    def children(self, node: Node, scope: Scope) -> Scope:
        """Walk what is inside a node we do not model, only to find commands for deny rules."""
        for child in node.named_children():
            if child.type in ("command", "pipeline", "list", "redirected_statement"):
                scope = self.node(child, scope)
            else:
                self.children_words(child, scope)
        return scope

    def children_words(self, node: Node, scope: Scope) -> None:
        for child in node.named_children():
            if child.type in ("command_substitution", "process_substitution"):
                self.substitution(child, scope)
            elif child.type in ("command", "pipeline", "list", "redirected_statement"):
                self.node(child, copy_scope(scope))
            else:
                self.children_words(child, scope)

    def _program(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        return self.sequence(node.named_children(), scope, pending)

    def sequence(self, nodes: list[Node], scope: Scope, pending: tuple[Node, ...] = ()) -> Scope:
        statements = [n for n in nodes if n.type != "comment"]
        for index, child in enumerate(statements):
            last = index == len(statements) - 1
            scope = self.node(child, scope, pending if last else ())
        return scope

    def _compound_statement(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        if node.children and node.children[0].text == "((":
            return self.arithmetic_command(node, scope, pending)
        self.group_redirects(pending, scope)
        return self.sequence(node.named_children(), scope)

    def _subshell(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        self.group_redirects(pending, scope)
        self.sequence(node.named_children(), copy_scope(scope))
        return scope

    def _redirected_statement(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        body = node.child("body")
        redirects = tuple(c for c in node.named_children() if c is not body) + pending
        if body is None:
            self.group_redirects(redirects, scope)
            return scope
        return self.node(body, scope, redirects)

    def _list(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        named = [c for c in node.named_children() if c.type != "comment"]
        operators = [c.text for c in node.children if not c.named]
        scope = self.node(named[0], scope, pending if len(named) == 1 else ())
        for index, child in enumerate(named[1:], start=1):
            last = index == len(named) - 1
            if operators and operators[min(index - 1, len(operators) - 1)] in ("&&", "||"):
                ran = self.node(child, copy_scope(scope), pending if last else ())
                scope = merge_scopes(scope, ran)
            else:
                scope = self.node(child, scope, pending if last else ())
        return scope

    def _pipeline(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        named = [c for c in node.named_children() if c.type != "comment"]
        for index, child in enumerate(named):
            self.node(child, copy_scope(scope), pending if index == len(named) - 1 else ())
        return scope

    def _negated_command(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        return self.sequence(node.named_children(), scope, pending)

    def _if_statement(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        self.group_redirects(pending, scope)
        conditions = node.fields("condition")
        scope = self.sequence([c for c in conditions if c.named], scope)
        outcomes = [scope]
        body = [c for c in node.named_children() if c.field != "condition"]
        branch: list[Node] = []
        for child in body:
            if child.type in ("elif_clause", "else_clause"):
                continue
            branch.append(child)
        outcomes.append(self.sequence(branch, copy_scope(scope)))
        for clause in body:
            if clause.type == "elif_clause":
                cond = [c for c in clause.fields("condition") if c.named]
                after = self.sequence(cond, copy_scope(scope))
                outcomes.append(after)
                rest = [c for c in clause.named_children() if c.field != "condition"]
                outcomes.append(self.sequence(rest, copy_scope(after)))
            elif clause.type == "else_clause":
                outcomes.append(self.sequence(clause.named_children(), copy_scope(scope)))
        return merge_scopes(*outcomes)

    def _while_statement(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        self.group_redirects(pending, scope)
        parts = [c for c in node.named_children()]
        return self.loop(parts, scope)

    def _for_statement(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        """`for f in a b *.py`: the body is walked once for each value (a few at most)."""
        self.group_redirects(pending, scope)
        words = [self.word(value, scope) for value in node.fields("value")]
        values: list[str | None] = [v for w in words for v in (w.values or ())]
        if any(w.values is None for w in words) or len(values) > MAX_LOOP_VALUES:
            values = [None]  # one of the values, unknown which
        variable = node.child("variable")
        body_node = node.child("body")
        body = [body_node] if body_node is not None else []
        outcomes = [scope]
        for value in values:
            inner = copy_scope(scope)
            if variable is not None:
                inner.line_vars[variable.text] = value
            outcomes.append(self.loop(body, inner))
        return merge_scopes(*outcomes)

    def loop(self, parts: list[Node], scope: Scope) -> Scope:
        """A body that may run any number of times: what it changes is unknown inside it."""
        trial = _Walker(Walk(), self.depth)
        changed = trial.sequence(parts, copy_scope(scope))
        start = merge_scopes(scope, changed)
        if start.cwds != scope.cwds:
            start.cwds = None
        end = self.sequence(parts, start)
        return merge_scopes(scope, end)

    def _do_group(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        return self.sequence(node.named_children(), scope, pending)

    def _case_statement(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        self.group_redirects(pending, scope)
        value = node.child("value")
        if value is not None:
            self.word(value, scope)
        outcomes = [scope]
        for item in node.named_children():
            if item.type != "case_item":
                continue
            for pattern in item.fields("value"):
                self.word(pattern, scope, glob_ok=False)
            body = [c for c in item.named_children() if c.field != "value"]
            outcomes.append(self.sequence(body, copy_scope(scope)))
        return merge_scopes(*outcomes)

    def arithmetic_command(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        """`(( 2 > 1 ))` on literals only tests; with names it can run code (arithmetic.py)."""
        text = node.text.strip()
        body = text[2:-2] if text.startswith("((") and text.endswith("))") else None
        if body is None or literal_value(body) is None:
            self.problem(not_understood_reason("arithmetic_expansion", node.text))
            return self.children(node, scope)
        redirects = self.redirects(pending, scope)
        self.record(Command(("((",), (), redirects, (), scope.cwds, node.text))
        return scope

    def _test_command(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        if node.children and node.children[0].text == "[[":
            self.double_bracket(node, scope)
        else:
            fields: list[Field] = []
            self.bracket_fields(node, scope, fields)
            problem = test_builtin_problem(fields)
            if problem:
                self.problem(problem)
        self.record(Command(("[[",), (), self.redirects(pending, scope), (), scope.cwds, node.text))
        return scope

    def double_bracket(self, node: Node, scope: Scope) -> None:
        """`[[ ]]`: no word splitting, so the parser's structure is bash's (testexpr.py)."""
        children = node.children
        operator = next((c.text for c in children if c.field == "operator"), "")
        if node.type == "unary_expression" and operator in NAME_TESTS:
            operand = next((c for c in children if c.named and c.field != "operator"), None)
            if operand is not None:
                self.problem_if(
                    name_test_problem(operator, self.word(operand, scope, glob_ok=False))
                )
                return
        if node.type == "binary_expression" and operator in ARITHMETIC_TESTS:
            sides = [c for c in children if c.field in ("left", "right")]
            words = [self.word(side, scope, glob_ok=False) for side in sides]
            self.problem_if(arithmetic_test_problem(operator, words))
            return
        for child in children:
            if child.type in ("unary_expression", "binary_expression", "parenthesized_expression"):
                self.double_bracket(child, scope)
            elif child.named and child.type not in (
                "test_operator",
                "regex",
                "extglob_pattern",
            ):
                self.word(child, scope, glob_ok=False)

    def bracket_fields(self, node: Node, scope: Scope, fields: list[Field]) -> None:
        """`[ ... ]`: the arguments the test builtin gets, in order."""
        for child in node.children:
            if child.type in ("unary_expression", "binary_expression", "parenthesized_expression"):
                self.bracket_fields(child, scope, fields)
            elif child.type == "test_operator" or not child.named:
                if child.text not in ("[", "]"):
                    fields.append(Field(child.text))
            elif child.type in ("regex", "extglob_pattern"):
                fields.append(Field(child.text))
            else:
                fields.extend(fields_of([self.word(child, scope, glob_ok=False)]))

    def problem_if(self, text: str | None) -> None:
        if text:
            self.problem(text)

    def _variable_assignment(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        name, word = self.assignment(node, scope)
        if pending:
            self.record(Command((), (), self.redirects(pending, scope), (), scope.cwds, node.text))
        if name is None:
            return scope
        if not _LOWER_NAME.fullmatch(name) or name == "_":
            self.problem(f"assigning `{name}` can change how later commands run")
        scope = copy_scope(scope)
        value = word.values if word is not None else ()
        scope.line_vars[name] = " ".join(value) if value is not None else None
        return scope

    def _variable_assignments(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        for child in node.named_children():
            scope = self.node(child, scope)
        self.group_redirects(pending, scope)
        return scope

    def assignment(self, node: Node, scope: Scope) -> tuple[str | None, Word | None]:
        name_node = node.child("name")
        value = node.child("value")
        if name_node is None or name_node.type != "variable_name":
            self.problem(not_understood_reason(name_node.type if name_node else "?", node.text))
            self.children_words(node, scope)
            return None, None
        if value is None:
            return name_node.text, Word("", ("",))
        return name_node.text, self.word(value, scope, glob_ok=False)

    def group_redirects(self, redirects: tuple[Node, ...], scope: Scope) -> None:
        for node in redirects:
            extra = _redirect_arguments(node)
            if extra:
                self.problem(f"`{node.text}`: words after a redirect of a group")
                self.words(extra, scope)
        if redirects:
            text = " ".join(r.text for r in redirects)
            self.record(Command((), (), self.redirects(redirects, scope), (), scope.cwds, text))

    # -- simple commands ------------------------------------------------------------

    def _command(self, node: Node, scope: Scope, pending: tuple[Node, ...]) -> Scope:
        assignments: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirect_nodes: list[Node] = []
        for child in node.children:
            if not child.named:
                self.problem(f"`{child.text}` is a word agentcli does not model")
            elif child.type == "variable_assignment":
                name, word = self.assignment(child, scope)
                if name is not None and word is not None:
                    assignments.append((name, word))
            elif child.field == "redirect" or child.type.endswith("_redirect"):
                redirect_nodes.append(child)
                words.extend(self.words(_redirect_arguments(child), scope))
            elif child.type == "command_name":
                words.extend(self.words(child.named_children(), scope))
            elif child.type != "comment":
                words.extend(self.words([child], scope))
        for child in pending:
            words.extend(self.words(_redirect_arguments(child), scope))
        redirects = self.redirects(tuple(redirect_nodes) + pending, scope)
        argv = _argv(words)
        command = Command(argv, tuple(words), redirects, tuple(assignments), scope.cwds, node.text)
        self.record(command)
        self.look_inside(command, scope)
        return self.effects(command, scope)

    def words(self, nodes: list[Node], scope: Scope) -> list[Word]:
        out = []
        for child in nodes:
            word = self.word(child, scope)
            if word is not None:
                out.append(word)
        return out

    def word(self, node: Node, scope: Scope, *, glob_ok: bool = True) -> Word:
        try:
            return expand_word(
                node,
                scope,
                lambda sub, quoted: self.substitution(sub, scope, quoted),
                glob_ok=glob_ok,
            )
        except NotUnderstood as exc:
            self.problem(str(exc))
            self.children_words(node, scope)
            return Word(node.text, None)

    def substitution(self, node: Node, scope: Scope, quoted: bool = False) -> None:
        text = node.text.lstrip()
        if node.type == "command_substitution" and text.startswith("`"):
            self.backticks(text, scope, quoted)
        else:
            self.sequence(node.named_children(), copy_scope(scope))

    def backticks(self, text: str, scope: Scope, quoted: bool) -> None:
        r"""Bash reads what is between backticks again, after removing the backslashes
        before `$`, backtick and backslash (and `"` in double quotes): so do we, which
        also finds nested backticks (`` `echo \`rm x\`` ``)."""
        body = text[1:-1] if len(text) > 1 and text.endswith("`") else text[1:]
        special = r'[$`\\"]' if quoted else r"[$`\\]"
        body = re.sub(r"\\(" + special + ")", r"\1", body)
        if self.depth >= MAX_DEPTH:
            self.problem("command substitutions nested too deeply")
            return
        _Walker(self.out, self.depth + 1, self.sink).script(body, copy_scope(scope))

    def redirects(self, nodes: tuple[Node, ...], scope: Scope) -> tuple[Redirect, ...]:
        out: list[Redirect] = []
        for node in nodes:
            out.extend(self.redirect(node, scope))
        return tuple(out)

    def redirect(self, node: Node, scope: Scope) -> list[Redirect]:
        if node.type == "herestring_redirect":
            bodies = [self.word(c, scope, glob_ok=False) for c in node.named_children()]
            return [Redirect("<<<", None, scope.cwds, body) for body in bodies]
        if node.type == "heredoc_redirect":
            return self.heredoc(node, scope)
        if node.type != "file_redirect":
            self.problem(not_understood_reason(node.type, node.text))
            self.children_words(node, scope)
            return []
        op = next((c.text.strip() for c in node.children if not c.named), "")
        destination = node.child("destination")  # the first; later ones are arguments
        if op in (">&-", "<&-") or destination is None:
            return [Redirect(op, None, scope.cwds)]
        if op in (">&", "<&") and re.fullmatch(r"\d+-?|-", destination.text):
            return [Redirect(op, None, scope.cwds)]
        word = self.word(destination, scope)
        if op == "<&":
            self.problem(f"`{node.text}` duplicates a descriptor named by a word")
        return [Redirect(op, word, scope.cwds)]

    def heredoc(self, node: Node, scope: Scope) -> list[Redirect]:
        out = []
        start = node.children[1].text if len(node.children) > 1 else ""
        quoted = any(q in start for q in "'\"\\")
        for child in node.named_children():
            if child.type in ("heredoc_start", "heredoc_end", "heredoc_content"):
                continue
            if child.type == "heredoc_body":
                if quoted:
                    continue
                if _unread_expansions(child):
                    self.problem("a here-document expands text agentcli's parser did not read")
                try:
                    body = expand_heredoc(
                        child, scope, lambda sub, _q: self.substitution(sub, scope, True)
                    )
                    out.append(Redirect("<<", None, scope.cwds, body))
                except NotUnderstood as exc:
                    self.problem(str(exc))
                    self.children_words(child, scope)
            elif child.type == "file_redirect":
                out.extend(self.redirect(child, scope))
            else:
                # `cat <<EOF | sh`, `cat <<EOF && x`: the grammar nests the rest of the
                # line inside the here-document; walk it for deny rules only.
                self.problem("a command after a here-document is not modelled")
                self.node(child, copy_scope(scope))
        return out or [Redirect("<<", None, scope.cwds)]

    # -- what a command does to the line ------------------------------------------------

    def look_inside(self, command: Command, scope: Scope) -> None:
        """Wrappers: record the commands they run (and parse `bash -c` scripts)."""
        name = command.name
        if name is None:
            self.out.dynamic.append(
                f"the command name `{command.words[0].text}` is not known before the line runs"
            )
            return
        base = name.rsplit("/", 1)[-1]
        for problem in name_problems(command.argv, scope.env, command.words):
            self.problem(problem)
        result = unwrap(command.argv)
        command.unwrapped = result
        if result.dynamic:
            self.out.dynamic.append(result.dynamic)
        for note in result.notes:
            if result.opaque:
                self.out.opaque.append(note)  # a script file: not seen, but not misread
            elif not result.inners and not result.script:
                self.problem(note)
        inner_walker = _Walker(self.out, self.depth, command.inner)
        for inner in result.inners:
            words = tuple(Word(a or "", (a,) if a is not None else None) for a in inner.argv)
            # -execdir runs in each found file's folder, `env -C DIR` in DIR...: relative
            # paths there are not known.
            moved = result.elsewhere or inner.via.endswith(("-execdir", "-okdir"))
            cwds = None if moved else scope.cwds
            child = Command(
                inner.argv, words, (), (), cwds, " ".join(a or "…" for a in inner.argv),
                via=inner.via, exact=inner.exact,
            )  # fmt: skip
            command.inner.append(child)
            inner_walker.look_inside(child, scope)
        for view in result.candidates:
            words = tuple(Word(a or "", (a,) if a is not None else None) for a in view)
            child = Command(view, words, (), (), scope.cwds, " ".join(a or "…" for a in view),
                            via=f"{base} (options not modelled)", exact=False)  # fmt: skip
            command.inner.append(child)
            inner_walker.look_inside(child, scope)
        # A shell script it runs, words of an unmodelled wrapper that may be one, and
        # variables or git settings whose value the program runs (`GIT_PAGER='...'`).
        strings = command_strings(command.argv, command.assignments)
        script = (result.script,) if result.script is not None else ()
        for text in (*result.scripts, *strings, *script):
            if self.depth >= MAX_DEPTH:
                self.problem("scripts nested too deeply")
                return
            nested = _Walker(self.out, self.depth + 1, command.inner)
            inner_scope = copy_scope(scope)
            inner_scope.positional_known = False
            if result.elsewhere:
                inner_scope.cwds = None
            nested.script(text, inner_scope)

    def effects(self, command: Command, scope: Scope) -> Scope:
        """What a command changes for the rest of the line: only `cd` and `pushd` here."""
        if command.name not in ("cd", "pushd") or command.via:
            return scope
        scope = copy_scope(scope)
        scope.cwds = command.lands = cd_target(command.argv[1:], scope)
        return scope


def _unread_expansions(body: Node) -> bool:
    """More `$` and backticks in a here-document than in the expansions the grammar found.

    tree-sitter misses expansions in some bodies (`<<-` with tab-indented lines);
    bash does not.
    """
    found = sum(c.text.count("$") + c.text.count("`") for c in body.named_children())
    text = re.sub(r"\\[$`\\]", "", body.text)
    return text.count("$") + text.count("`") > found


def _redirect_arguments(node: Node) -> list[Node]:
    """Words the grammar hangs on a redirect (`cat > f x` is `cat x > f`): arguments."""
    if node.type != "file_redirect":
        return []
    return node.fields("destination")[1:]


def _argv(words: list[Word]) -> tuple[Arg, ...]:
    argv: list[Arg] = []
    for word in words:
        if word.values is None:
            if not argv or argv[-1] is not None:
                argv.append(None)
        else:
            argv.extend(word.values)
    return tuple(argv)
