"""The model's questions to the person (AskUserQuestion), in place of the input.

One question at a time, its header as a chip and "1 of 2" when there are more;
its options numbered, each with its description, and last "Other", where the
person types an answer of their own. Claude Code's keys:

- a number chooses that option (a multiSelect question: ticks or unticks it);
- Up and Down move the cursor, Enter chooses the option under it (multiSelect:
  confirms the ticked ones, or the one under the cursor when none is ticked);
  Space ticks or unticks (multiSelect);
- on "Other" (its number, or Enter there) the answer field takes the keys; Enter
  there gives the words as the answer (multiSelect: after the ticked labels);
  Up there goes back to the options;
- Esc, as at any question, interrupts the turn: the call does not run and the
  model is not asked again until the person writes.

When the last question is answered the prompt answers its `PermissionQuestion`
(frontends/driver/person.py `answered`) and the app takes it down, as it does
the permission prompt when its question closes. Keys that arrive within
`guard_s` of the prompt appearing are ignored (typed for the prompt input, not
as answers), as at the permission prompt.

Everything shown is the model's text: control characters are drawn as symbols
(`␛`), never obeyed.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.driver.person import PersonQuestions, answered, joined
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.tools.ask_user_question import Question

GUARD_S = 0.25
OTHER = "Other"
OTHER_HINT = "Type your own answer, then Enter"


class QuestionPrompt(Vertical, can_focus=True):
    """No id: the next question's prompt may be mounted while this one is being removed."""

    def __init__(
        self, question: PermissionQuestion, asked: PersonQuestions, *, guard_s: float = GUARD_S
    ) -> None:
        super().__init__(classes="permission question-prompt")
        self.question = question
        self.asked = asked
        self.guard_s = guard_s
        self.shown_at = time.monotonic()
        self.ignored_keys = 0
        self.index = 0  # the question on screen
        self.cursor = 0  # the option under the cursor; len(options) is "Other"
        self.ticked: set[int] = set()  # a multiSelect question's ticked options
        self.answers: dict[str, str] = {}

    # -- what is shown ----------------------------------------------------------------

    @property
    def current(self) -> Question:
        return self.asked.questions[self.index]

    def compose(self) -> ComposeResult:
        yield Static(self._title(), classes="permission-title question-title")
        yield Static(self._options(), classes="permission-options question-options")
        yield Input(placeholder=OTHER_HINT, id="question-other")
        yield Static(self._keys(), classes="question-keys")

    def _title(self) -> Text:
        current = self.current
        title = Text()
        title.append(f" {visible_controls(current.header)} ", style="reverse bold")
        count = len(self.asked.questions)
        if count > 1:
            title.append(f"  {self.index + 1} of {count}", style="dim")
        if self.asked.asked_by is not None:
            title.append(f"  (asked by {visible_controls(self.asked.asked_by.label())})")
        title.append("\n")
        title.append(visible_controls(current.question), style="bold")
        return title

    def _options(self) -> Text:
        current = self.current
        text = Text()
        labels = [option.label for option in current.options]
        for number, option in enumerate(current.options, start=1):
            here = self.cursor == number - 1
            text.append("❯ " if here else "  ", style="bold" if here else "")
            if current.multi_select:
                text.append("[x] " if number - 1 in self.ticked else "[ ] ")
            text.append(f"{number}. {visible_controls(option.label)}", style="bold" if here else "")
            if option.description:
                text.append(f"\n     {visible_controls(option.description)}", style="dim")
            text.append("\n")
        here = self.cursor == len(labels)
        text.append("❯ " if here else "  ", style="bold" if here else "")
        text.append(f"{len(labels) + 1}. {OTHER}", style="bold" if here else "")
        text.append("  (your own answer)", style="dim")
        return text

    def _keys(self) -> Text:
        if self.current.multi_select:
            keys = "Space or a number ticks · Enter confirms · Esc interrupts the turn"
        else:
            keys = "A number or Enter chooses · Esc interrupts the turn"
        return Text(keys, style="dim")

    def _redraw(self) -> None:
        self.query_one(".question-title", Static).update(self._title())
        self.query_one(".question-options", Static).update(self._options())
        self.query_one(".question-keys", Static).update(self._keys())

    def fit(self, rows: int, columns: int) -> None:
        """Take at most `rows` rows: the app calls it after each layout, as it does the
        permission prompt's."""
        self.styles.max_height = max(rows, 1)

    # -- keys ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.shown_at = time.monotonic()
        self.focus()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":  # never guarded: stopping is always safe
            event.stop()
            event.prevent_default()
            self.interrupt()
            return
        other = self.query_one("#question-other", Input)
        if self.screen.focused is other:
            if event.key == "up":  # back to the options
                event.stop()
                self.cursor = len(self.current.options) - 1
                self.focus()
                self._redraw()
            return
        event.stop()
        event.prevent_default()
        if time.monotonic() - self.shown_at < self.guard_s:
            self.ignored_keys += 1
            return
        key = event.key
        last = len(self.current.options)  # "Other"
        if key == "up":
            self.cursor = max(0, self.cursor - 1)
        elif key == "down":
            self.cursor = min(last, self.cursor + 1)
        elif (
            event.character and event.character.isdigit() and 1 <= int(event.character) <= last + 1
        ):
            self.cursor = int(event.character) - 1
            self._choose()
        elif key == "space" and self.current.multi_select and self.cursor < last:
            self.ticked ^= {self.cursor}
        elif key == "enter":
            if self.current.multi_select and self.cursor < last:
                self._confirm_ticked()
            else:
                self._choose()
        else:
            return
        if self.is_mounted and self.question.is_open:
            self._redraw()

    def _choose(self) -> None:
        """The option under the cursor: chosen (ticked, for multiSelect); "Other" takes
        the keys to the answer field."""
        if self.cursor == len(self.current.options):
            self.query_one("#question-other", Input).focus()
            return
        if self.current.multi_select:
            self.ticked ^= {self.cursor}
            return
        self._give(self.current.options[self.cursor].label)

    def _confirm_ticked(self) -> None:
        if not self.ticked:
            self.ticked = {self.cursor}
        self._give(joined(self._ticked_labels()))

    def _ticked_labels(self) -> list[str]:
        return [self.current.options[i].label for i in sorted(self.ticked)]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.strip()
        if not words:  # nothing typed: the answer is still to be given
            return
        labels = self._ticked_labels() if self.current.multi_select else []
        event.input.value = ""
        self.focus()
        self._give(joined([*labels, words]))

    def _give(self, answer: str) -> None:
        """This question's answer; then the next question, or the answers to the call."""
        self.answers[self.current.question] = answer
        if self.index + 1 < len(self.asked.questions):
            self.index += 1
            self.cursor = 0
            self.ticked = set()
            self._redraw()
            return
        self.question.answer(answered(self.question.request, self.answers))

    def interrupt(self) -> None:
        """Esc: refuse this call and stop the turn."""
        self.question.answer(PermissionAnswer(allow=False, interrupt=True))
