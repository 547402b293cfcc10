"""Issue 22, class 9: names that bash evaluates as arithmetic, and literal arithmetic.

Bash evaluates arithmetic in `$((...))`, `$[...]`, `((...))`, `let`, `-eq`-style
operands of `[[ ]]`, the names `-v`/`-R` test, `printf -v`, `declare`/`local`/
`unset`/`read -a`/`mapfile` targets. A name or a subscript that is not a
literal there runs code (`a[$(cmd)]`): such a line is not understood, so it
asks, and a deny rule whose words appear in it still denies in bypass mode.
Arithmetic on integer literals is understood: `$((40+2))` is the word `42`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_custom_commands_cli import first_prompt, write
from tests.integration.test_headless_cli import agentcli
from tests.permissions.test_attack_shell import BYPASS, GIT_DIFF, RM, Case, decide, layout

PRINTF = ("Bash(printf:*)",)


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOME_CUSTOM_VAR", "custom")
    monkeypatch.delenv("CDPATH", raising=False)
    monkeypatch.delenv("BASH_ENV", raising=False)
    return layout(tmp_path, isolated_home)


RUNS_CODE = [
    # -v / -R with a subscript, in every test spelling.
    Case("[[ -v 'a[$(touch p)]' ]]", "ask"),
    Case("[[ -R 'a[$(touch p)]' ]]", "ask"),
    Case("[[ ! -v 'a[$(touch p)]' ]] && echo x", "ask"),
    Case("[[ -v a[$(echo 1)] ]]", "ask"),  # the subscript is the substitution's output
    Case("[[ -v $(echo x) ]]", "ask"),
    Case("test -v 'a[$(touch p)]'", "ask"),
    Case("[ -v 'a[$(touch p)]' ]", "ask"),
    Case("[ ! -v 'a[$(touch p)]' ]", "ask"),
    Case("[ -n x -a -v 'a[$(touch p)]' ]", "ask"),
    Case("builtin test -v 'a[$(touch p)]'", "ask"),
    Case("command [ -v 'a[$(touch p)]' ]", "ask"),
    Case("timeout 5 test -R 'a[$(touch p)]'", "ask"),
    # A word not known before the line runs may itself become `-v`.
    Case("test \"$(echo -v)\" 'a[$(touch p)]'", "ask"),
    Case("[ $(echo -v) ]", "ask"),
    Case('[ -v "$(echo x)" ]', "ask"),
    # printf -v assigns (and evaluates the subscript); an unknown first word may be -v.
    Case("printf -v 'a[$(touch p)]' %s x", "ask", PRINTF),
    Case("printf -vPATH %s /tmp", "ask", PRINTF),
    Case("printf $(echo -v) 'a[$(touch p)]' x", "ask"),
    Case("printf $(echo -v) 'a[$(touch p)]' x", "ask", PRINTF),
    # Builtins that assign names, reached through a wrapper the grammar does not see through.
    Case("builtin declare 'a[$(touch p)]=1'", "ask", ("Bash(builtin:*)",)),
    Case("command typeset 'a[$(touch p)]=1'", "ask", ("Bash(command:*)",)),
    Case("builtin local 'a[$(touch p)]'", "ask"),
    Case("command export 'a[$(touch p)]=1'", "ask"),
    Case("builtin readonly 'a[$(touch p)]=1'", "ask"),
    Case("command unset 'a[$(touch p)]'", "ask"),
    Case("declare -i x='a[$(touch p)]'", "ask"),
    Case("local 'a[$(touch p)]'", "ask"),
    Case("unset 'a[$(touch p)]'", "ask"),
    Case("read -a 'a[$(touch p)]' <<< x", "ask"),
    Case("mapfile 'a[$(touch p)]' < README.md", "ask"),
    Case("readarray -t 'a[$(touch p)]' < README.md", "ask"),
    Case("wait -p 'a[$(touch p)]'", "ask", ("Bash(wait:*)",)),
    # let, (( )), $(( )), $[ ] and [[ -eq ]] with names.
    Case("let 'a[$(touch p)]=1'", "ask"),
    Case("let x=1", "ask", ("Bash(let:*)",)),
    Case("(( a[$(touch p)] ))", "ask"),
    Case("(( x ))", "ask"),
    Case("(( x = 1 )) && echo y", "ask"),
    Case("[[ 'a[$(touch p)]' -eq 1 ]]", "ask"),
    Case("[[ x -eq 1 ]]", "ask"),
    Case("[[ 1 -lt y ]]", "ask"),
    Case("[[ $SOME_CUSTOM_VAR -eq 1 ]]", "ask"),  # its value is a name
    Case("echo $((x+1))", "ask"),
    Case("echo $(( a[$(touch p)] ))", "ask"),
    Case("echo $(( $(touch p) ))", "ask"),
    Case('echo $(( "$HOME" ))', "ask"),
    Case("echo $[x]", "ask"),
    Case("echo $((i++))", "ask"),
    Case("echo $((--5))", "ask"),  # a decrement needs a name: bash refuses it
    Case("echo $((1/0))", "ask"),  # bash fails the command: not guessed
    Case("echo $((1<<64))", "ask"),
    Case("git diff HEAD~$((x))", "ask", GIT_DIFF),
    Case("for ((i=0;i<3;i++)); do echo $i; done", "ask"),
]


@pytest.mark.parametrize("case", RUNS_CODE, ids=[c.command for c in RUNS_CODE])
def test_arithmetic_on_names_and_subscripts_asks(project: Path, case: Case) -> None:
    behavior, reason = decide(project, case)
    assert behavior == case.expected, reason


HIDES_A_DENIED_COMMAND = [
    "[[ -v 'a[$(rm src)]' ]]",
    "test -v 'a[$(rm src)]'",
    "[ -v 'a[$(rm src)]' ]",
    "printf -v 'a[$(rm src)]' %s x",
    "builtin declare 'a[$(rm src)]=1'",
    "command unset 'a[$(rm src)]'",
    "let 'a[$(rm src)]=1'",
    "(( a[$(rm src)] ))",
    "[[ 'a[$(rm src)]' -eq 1 ]]",
    "echo $(( a[$(rm src)] ))",
]


@pytest.mark.parametrize("command", HIDES_A_DENIED_COMMAND)
def test_a_deny_rule_sees_the_command_in_a_subscript_in_bypass_mode(project: Path, command: str):
    behavior, reason = decide(project, Case(command, "deny", deny=RM, mode=BYPASS))
    assert behavior == "deny", reason


LITERAL = [
    Case("echo $((40+2))", "allow"),
    Case("echo CMD-OUT-$((40+2))", "allow", ("Bash(echo:*)",)),
    # The value is what the rule sees: an exact rule for the result matches.
    Case("touch out-$((40+2))", "allow", ("Bash(touch out-42)",)),
    Case("touch out-$((40+3))", "ask", ("Bash(touch out-42)",)),
    Case("echo $[1+2]", "allow"),
    Case('echo "x$((0x10 + 8#17 + 2#101))"', "allow"),
    Case("echo $(( (7 - -2) * 3 % 5 ))", "allow"),
    Case("echo $(( 1 ? 2 : 1/0 ))", "allow"),  # bash does not evaluate the other branch
    Case("(( 2 > 1 )) && echo yes", "allow"),
    Case("[[ 1+1 -eq 2 ]] && echo yes", "allow"),
    Case("[[ $? -eq 0 ]]", "allow"),
    Case("git diff HEAD~$((1+1))", "allow", GIT_DIFF),
    Case("head -n $((2*10)) README.md", "allow"),
    # test and [ compare integers without evaluating names.
    Case("[ 3 -eq 4 ]", "allow"),
    Case("test 3 -lt 4", "allow"),
    Case('[ "$HOME" -eq 1 ]', "allow"),
    # -v on plain names and literal subscripts.
    Case("[[ -v HOME ]]", "allow"),
    Case("[[ -v 'a[1]' ]]", "allow"),
    Case("[[ -v 'a[@]' ]]", "allow"),
    Case("[[ -v 'a[2*3]' ]]", "allow"),
    Case("test -v PATH", "allow"),
    Case("[ -v x ]", "allow"),
    # A quoted unknown word is one argument; without a -v before it nothing is evaluated.
    Case('[ -n "$(git status --porcelain)" ]', "allow"),
    Case('[ "$(git rev-parse HEAD)" = x ]', "allow"),
    Case("printf '%s\\n' x", "allow"),
    Case("printf %d $((6*7))", "allow"),
]


@pytest.mark.parametrize("case", LITERAL, ids=[f"{c.command}-{c.allow}" for c in LITERAL])
def test_arithmetic_on_literals_is_understood(project: Path, case: Case) -> None:
    behavior, reason = decide(project, case)
    assert behavior == case.expected, reason


def test_a_command_file_line_with_literal_arithmetic_runs_in_headless_mode(fake_api, tmp_path):
    """The issue's case: `allowed-tools: Bash(echo:*)` and `!`echo CMD-OUT-$((40+2))``."""
    from tests.fakeapi import reply, text

    root = tmp_path / "repo"
    write(
        root / ".claude/commands/calc.md",
        "---\nallowed-tools: Bash(echo:*)\n---\nResult:\n!`echo CMD-OUT-$((40+2))`\n",
    )
    fake_api.enqueue(reply(text("ok")))

    done = agentcli(["-p", "/calc"], root, fake_api)

    assert done.returncode == 0, done.stderr
    assert "CMD-OUT-42" in first_prompt(fake_api)
