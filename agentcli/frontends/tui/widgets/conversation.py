"""The scrolling conversation: user messages, answers, tool panes, notes.

`layout: stream` keeps arranging cheap with many children, and the view is
anchored to the bottom while the person has not scrolled up. Only the items
near the screen stay mounted: while the person follows the end, the items more
than `KEEP_SCREENS` screens above the bottom are released, and never more than
`max_widgets` are mounted. A released item becomes an entry
(history_entries.py), rebuilt when the person scrolls back to it; one that
cannot be rebuilt is pruned (it remains in the engine's history and the
transcript). So a session of thousands of messages costs the same memory, and
the same per key press and per token, as a short one.

What people and tools wrote is untrusted: user messages, notes given as
strings and markdown notes are cleaned here (agentcli.core.terminal_text), answers
by their widget, tool output by its pane.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from contextlib import nullcontext
from time import monotonic
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from agentcli.core.terminal_text import clean_markdown
from agentcli.frontends.tui.history_entries import Entry, entry_for
from agentcli.frontends.tui.widgets.answer import make_answer_widget
from agentcli.frontends.tui.widgets.items import Note, UserMessageView
from agentcli.frontends.tui.widgets.tool_pane import ToolPane

if TYPE_CHECKING:
    from textual.timer import Timer

MAX_WIDGETS = 300
PRUNE_BATCH = 50
# Screens of items kept mounted above the bottom while the person follows the end;
# older ones are released once at least a screenful of them is off that window
# (one removal a screen of new content, not one an item).
KEEP_SCREENS = 3
# Screens a resumed history fills in at first (the newest one and two above it for a
# page up), one item at a time with a frame between: a key typed meanwhile echoes
# after one item's build, not after three screens' (load_history).
FILL_SCREENS = 3
# Frames a resume's loader waits at most for the newest items to be drawn as they stay.
DRAWN_FRAMES = 6
# While the person types, that fill waits until they pause this long: each of its steps
# is a frame's layout and paint, and a key typed meanwhile echoes only after it.
FILL_PAUSE_S = 1.0


class Conversation(VerticalScroll, can_focus=False):
    def __init__(self, *, max_widgets: int = MAX_WIDGETS, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_widgets = max_widgets
        self.panes: dict[str, ToolPane] = {}
        self.answer: Any | None = None  # the answer streaming now
        self._answer_mounted: Any = None
        self._items: deque[Widget] = deque()  # mounted items, oldest first
        # Mounted before a resumed history and kept above it (the banner, start-up notes).
        self._head: list[Widget] = []
        # The items that are not mounted, as entries (history_entries.py), oldest first:
        # those above the mounted ones, and those below them (only while the person
        # looks back at the start of a long conversation).
        self._earlier: list[Entry] = []
        self._later: list[Entry] = []
        self._moving = False  # a batch is being mounted or released
        # Home or End pressed while a batch was moving: done once it has (`_moved`).
        self._wanted: str | None = None
        self._filling = 0  # lines a resumed history still fills in, an item a frame
        self._fill_held = False  # that fill waits for `start_fill` (a resume's rest)
        self._fill_timer: Timer | None = None  # the fill waits for a pause in the typing
        self._typed_at: float | None = None  # when the person last typed (monotonic)
        self.last_answer_source: str = ""
        self.pruned = 0  # items dropped for good (widgets that cannot be rebuilt)
        self._pruned_label = Static("", classes="pruned")
        self._pruned_label.display = False

    def compose(self) -> ComposeResult:
        yield self._pruned_label

    def on_mount(self) -> None:
        self.anchor()

    # -- adding items -----------------------------------------------------------

    def _add(self, widget: Widget) -> Widget:
        if self._later:  # something new while the person reads the start: back to the end
            self._collapse_to_latest()
        self.mount(widget)
        self._items.append(widget)
        self._prune()
        return widget

    def add_widget(self, widget: Widget) -> Widget:
        return self._add(widget)

    def add_user(self, text: str) -> UserMessageView:
        self.anchor()
        return self._add(UserMessageView(text))  # type: ignore[return-value]

    def add_note(self, content: str | Text, level: str = "info") -> Note:
        return self._add(Note(content, level))  # type: ignore[return-value]

    def add_markdown_note(self, markdown: str) -> Widget:
        """Command output written as markdown (/help, /status ...)."""
        from textual.widgets import Markdown

        return self._add(Markdown(clean_markdown(markdown), classes="note -command"))

    def append_text(self, text: str) -> None:
        """A chunk of the streaming answer: O(chunk), no layout of older items."""
        if self.answer is None:
            if self._later:
                self._collapse_to_latest()
            self.answer = make_answer_widget(classes="assistant-message")
            self._answer_mounted = self.mount(self.answer)
            self._items.append(self.answer)
            self._prune()
        self.answer.append(text)

    async def finish_answer(self) -> None:
        answer, self.answer = self.answer, None
        if answer is not None:
            # A short answer can end before its widget is mounted; finish it after.
            mounted, self._answer_mounted = self._answer_mounted, None
            if mounted is not None and not answer.is_mounted:
                await mounted
            await answer.finish()
            if answer.source.strip():
                self.last_answer_source = answer.source

    def add_tool(self, tool_use_id: str, name: str, inp: dict[str, Any], summary: str) -> ToolPane:
        pane = ToolPane(tool_use_id, name, inp, summary)
        self.panes[tool_use_id] = pane
        self._add(pane)
        return pane

    def pane(self, tool_use_id: str) -> ToolPane | None:
        return self.panes.get(tool_use_id)

    # -- a resumed history ------------------------------------------------------------

    async def load_history(self, entries: list[Entry], *, fill_now: bool = True) -> None:
        """Show a conversation's earlier items: the newest is built now, the rest of
        its screen and two screens above (ready for a page up) one item a frame after
        it (`_fill_step`) while the person is not typing, the rest when the person
        scrolls back to them. `fill_now=False`: that fill waits for `start_fill` (a
        resume's tail, until the loader has prepared what the items above need: built
        before that, the first of them would do that work on the loop, and hold a
        key typed meanwhile; a scroll still builds what it needs)."""
        self._head.extend(self._items)  # what is shown already stays above it
        self._items.clear()
        self._earlier.extend(entries)
        widgets = self._built(self._take_earlier(1))
        if widgets:
            # Frames go on while the newest item is drawn (a key typed meanwhile is
            # echoed): below everything else, it moves nothing while it grows.
            await self._mount_batch(widgets, in_one_frame=False)
            self._items.extend(widgets)
        self.anchor()
        self._filling = self._screenful(FILL_SCREENS) - sum(e.lines() for e in entries[-1:])
        self._fill_held = not fill_now
        if self._earlier and fill_now:
            self._begin_fill()

    def start_fill(self) -> None:
        """The fill `load_history(fill_now=False)` held back goes on now."""
        if self._fill_held:
            self._fill_held = False
            if self._filling > 0 and self._earlier:
                self._begin_fill()

    def _begin_fill(self) -> None:
        typing = None if self._typed_at is None else monotonic() - self._typed_at
        if typing is not None and typing < FILL_PAUSE_S:  # typing since before the history came
            self._pause_fill(FILL_PAUSE_S - typing)
        else:
            self.call_after_refresh(self._fill_step)

    def after_drawn(self, callback: Callable[[], object], frames: int = DRAWN_FRAMES) -> None:
        """Call `callback` once the items mounted are drawn as they stay: a finished
        answer is drawn from its lines once its hidden block widgets are rendered and
        gone (streaming_markdown.py `flattened`); after `frames` refreshes at most. A
        resume's loader waits for this before its own heavy work (the engine's
        imports), which would share the interpreter with those frames."""

        def check(left: int) -> None:
            if left <= 0 or all(getattr(item, "flattened", True) for item in self._items):
                callback()
            else:
                self.call_after_refresh(check, left - 1)

        self.call_after_refresh(check, frames)

    async def _fill_step(self) -> None:
        """One more item above (load_history), kept in place; the next one after the
        frame that draws it (`_moved`). A move of the person's goes first, and their
        typing: the step waits until they pause (`person_typed`)."""
        if self._filling <= 0 or not self._earlier or self._later:
            self._filling = 0
            return
        if self._fill_held:
            return  # `start_fill` comes back here
        if self._moving:
            return  # the move's end (`_moved`) comes back here
        if self._fill_timer is not None:
            return  # the person is typing: the pause's end comes back here
        self._filling -= self._earlier[-1].lines()
        await self.show_earlier(lines=1)

    async def _fill_after_pause(self) -> None:
        self._fill_timer = None
        await self._fill_step()

    def person_typed(self) -> None:
        """The person typed in the prompt: a resumed history's fill, if it is still
        going (or once it starts), waits until they pause (FILL_PAUSE_S after their
        last key). A resume is typed into from its first frame on, before the history
        is there to fill in."""
        self._typed_at = monotonic()
        if self._filling > 0:
            self._pause_fill(FILL_PAUSE_S)

    def _pause_fill(self, seconds: float) -> None:
        if self._fill_timer is not None:
            self._fill_timer.stop()
        self._fill_timer = self.set_timer(seconds, self._fill_after_pause)

    async def add_earlier_history(self, entries: list[Entry]) -> None:
        """Items older than every one here (the rest of a resumed transcript, read after
        its newest lines were shown): built when the person scrolls to them, now if
        they are already at the top."""
        self._earlier[:0] = entries
        self.start_fill()
        if self._filling > 0:
            return  # filling in already, an item a frame
        if entries and self.is_mounted and self.scroll_y <= self._near():
            await self.show_earlier()

    def hidden_count(self) -> tuple[int, int]:
        """How many items are not mounted now: (above the screen's, below them)."""
        return len(self._earlier), len(self._later)

    # -- scrolling through the whole conversation -------------------------------------

    async def scroll_history(self, key: str) -> None:
        """The prompt's scrolling keys: pageup, pagedown, home / ctrl+home (the
        conversation's first item), end / ctrl+end (its newest, anchored again)."""
        page = max(self.scrollable_content_region.height - 1, 1)
        if key == "pageup":
            if self.scroll_y <= self._near() and self._earlier:
                await self.show_earlier(then_up=page)  # the page up once they are laid out
            else:
                self.scroll_page_up(animate=False)
        elif key == "pagedown":
            if self.scroll_y >= self.max_scroll_y - self._near() and self._later:
                await self.show_later()
            self.scroll_page_down(animate=False)
        elif key in ("home", "ctrl+home"):
            await self.show_first()
        elif key in ("end", "ctrl+end"):
            await self.show_latest()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._moving or not self.is_mounted:
            return
        if self._earlier and new_value < old_value and new_value <= self._near():
            self.call_later(self.show_earlier)
        elif (
            self._later and new_value > old_value and new_value >= self.max_scroll_y - self._near()
        ):
            self.call_later(self.show_later)

    # Each move mounts (awaited: the widgets exist), then fixes the scroll position in
    # a callback after the next refresh, when the new items have their heights. It
    # never awaits that refresh: the move may run on this widget's own message pump,
    # which is what delivers it. `_moving` holds other moves off until then.

    async def show_earlier(self, then_up: int = 0, lines: int | None = None) -> None:
        """Mount the next two screens above (`lines` lines), keeping what is on screen
        where it is (`then_up` lines higher: a page up that needed them); at the end
        if the view was there (what was added below meanwhile comes into view)."""
        if self._moving or not self._earlier:
            return
        self._moving = True
        at_end = not then_up and self._at_end()
        widgets = self._built(self._take_earlier(self._screenful(2) if lines is None else lines))
        first = self._items[0] if self._items else None
        before = first.virtual_region.y if first is not None else 0
        await self._mount_batch(widgets, before=first)
        self._items.extendleft(reversed(widgets))
        self.call_after_refresh(self._keep_in_place, first, before, then_up, at_end)

    def _keep_in_place(
        self, kept: Widget | None, before: int, then_up: int = 0, at_end: bool = False
    ) -> None:
        if at_end:
            # Following the end: staying there keeps what was on screen in place, and
            # shows (and goes on following) a line added below while the batch was built,
            # which keeping the first item still would leave under the screen.
            self.scroll_end(animate=False, immediate=True)
        elif kept is not None and kept.is_mounted:
            shift = kept.virtual_region.y - before
            self.scroll_to(y=max(self.scroll_y + shift - then_up, 0), animate=False, immediate=True)
        self._release_below()
        self._moved()
        if self._earlier and self.scroll_y <= self._near() and self._filling <= 0:
            # Still near the top (the wheel reached it while this batch was built: at
            # the top it moves nothing, so no scroll would ask again): the next batch.
            self.call_later(self.show_earlier)

    async def show_later(self) -> None:
        """Mount the next screenful below (after the person went back to the start)."""
        if self._moving or not self._later:
            return
        self._moving = True
        count = self._count_for(self._later, self._screenful(2))
        batch, self._later[:count] = self._later[:count], []
        widgets = self._built(batch)
        await self._mount_batch(widgets)
        self._items.extend(widgets)
        self.call_after_refresh(self._release_above)

    def _moved(self) -> None:
        """A move is over: Home or End pressed during it is done now."""
        self._moving = False
        wanted, self._wanted = self._wanted, None
        if wanted == "first":
            self.call_later(self.show_first)
        elif wanted == "latest":
            self.call_later(self.show_latest)
        elif self._filling > 0:
            self.call_after_refresh(self._fill_step)

    async def show_first(self) -> None:
        """The start of the conversation: its first screens, built now (once the batch
        moving now, if one is, has moved)."""
        if self._moving:
            self._wanted = "first"
            return
        if not self._earlier:
            self.scroll_home(animate=False)
            return
        entries = self._entries_of_items()
        if entries is None:  # a live item cannot be rebuilt: go up a batch at a time
            self.scroll_home(animate=False)
            await self.show_earlier()
            return
        self._moving = True
        self._later[:0] = entries
        self.remove_children(list(self._items))
        self._items.clear()
        count = self._count_for(self._earlier, self._screenful(2))
        batch, self._earlier[:count] = self._earlier[:count], []
        self._later[:0], self._earlier = self._earlier, []
        widgets = self._built(batch)
        await self._mount_batch(widgets)
        self._items.extend(widgets)
        self.call_after_refresh(self._at_start)

    def _at_start(self) -> None:
        self.scroll_home(animate=False, immediate=True)
        self._moved()

    async def show_latest(self) -> None:
        """Back to the newest item, following new ones again."""
        if self._later and self._moving:
            self._wanted = "latest"
            return
        if self._later:
            self._collapse_to_latest()
        self.anchor()

    # -- the window's mechanics -----------------------------------------------------

    def _at_end(self) -> bool:
        """The view shows the end (or everything fits on screen)."""
        return self.max_scroll_y <= 0 or self.max_scroll_y - self.scroll_y <= 1

    def _near(self) -> int:
        return max(self.size.height // 2, 1)

    def _screenful(self, screens: int) -> int:
        return max(self.size.height, 20) * screens

    @staticmethod
    def _count_for(entries: list[Entry], lines: int) -> int:
        """How many entries from the front of `entries` make about `lines` lines."""
        total = 0
        for count, entry in enumerate(entries, start=1):
            total += entry.lines()
            if total >= lines:
                return count
        return len(entries)

    def _take_earlier(self, lines: int) -> list[Entry]:
        """The newest entries above the mounted ones that make about `lines` lines."""
        total, start = 0, len(self._earlier)
        while start > 0 and total < lines:
            start -= 1
            total += self._earlier[start].lines()
        batch, self._earlier[start:] = self._earlier[start:], []
        return batch

    def _built(self, entries: list[Entry]) -> list[Widget]:
        widgets = []
        for entry in entries:
            widget = entry.build()
            widget.history_entry = entry  # type: ignore[attr-defined]
            if isinstance(widget, ToolPane):
                self.panes[widget.tool_use_id] = widget
            widgets.append(widget)
        return widgets

    async def _mount_batch(
        self, widgets: list[Widget], before: Widget | None = None, *, in_one_frame: bool = True
    ) -> None:
        """Mount `widgets` and draw the finished answers among them; `in_one_frame`: no
        frame is painted until they are all drawn (an item above the screen's must not
        show short, then grow, pushing what is on screen down)."""
        if not widgets:
            return
        if before is not None:
            await self.mount_all(widgets, before=before)
        elif self._head and not self._items:
            await self.mount_all(widgets, after=self._head[-1])
        else:
            await self.mount_all(widgets)
        with self.app.batch_update() if in_one_frame else nullcontext():
            for widget in widgets:
                if getattr(widget, "finished", False):
                    await widget.flush()  # type: ignore[attr-defined]

    def _entries_of_items(self) -> list[Entry] | None:
        entries = []
        for widget in self._items:
            entry = entry_for(widget)
            if entry is None:
                return None
            entries.append(entry)
        return entries

    def _collapse_to_latest(self) -> None:
        """Every item back in `_earlier`, then the newest two screens mounted (the items
        mounted now can all be rebuilt: nothing live is mounted while `_later` holds any)."""
        entries = self._entries_of_items() or []
        self._earlier.extend(entries)
        self._earlier.extend(self._later)
        self._later = []
        self._forget(list(self._items))
        self.remove_children(list(self._items))
        self._items.clear()
        widgets = self._built(self._take_earlier(self._screenful(2)))
        if widgets:
            self.mount_all(widgets)
        self._items.extend(widgets)
        self.anchor()

    def _releasable(self, from_top: bool) -> tuple[list[Widget], list[Entry]]:
        """Past `max_widgets` mounted, the items farthest from the screen on one side,
        and the entries that rebuild them; taken out of `_items`."""
        doomed: list[Widget] = []
        entries: list[Entry] = []
        while len(self._items) > self.max_widgets:
            widget = self._items[0] if from_top else self._items[-1]
            entry = entry_for(widget)
            if entry is None or widget is self.answer:
                break
            doomed.append(self._items.popleft() if from_top else self._items.pop())
            entries.append(entry)
        self._forget(doomed)
        return doomed, entries

    def _release_below(self) -> None:
        doomed, entries = self._releasable(from_top=False)
        if doomed:
            self._later[:0] = reversed(entries)
            self.remove_children(doomed)

    def _release_above(self) -> None:
        doomed, entries = self._releasable(from_top=True)
        if not doomed:
            self._moved()
            return
        kept = self._items[0] if self._items else None
        before = kept.virtual_region.y if kept is not None else 0
        self._earlier.extend(entries)
        self.remove_children(doomed)
        self.call_after_refresh(self._keep_in_place, kept, before)

    def _forget(self, widgets: list[Widget]) -> None:
        for widget in widgets:
            if isinstance(widget, ToolPane):
                self.panes.pop(widget.tool_use_id, None)

    # -- housekeeping -----------------------------------------------------------

    def item_count(self) -> int:
        return len(self._items)

    def _prune(self) -> None:
        """Unmount the oldest items once they are far above the screen, or once there
        are too many (in batches, so the layout is rebuilt rarely); each becomes an
        entry, rebuilt when the person scrolls back to it. Items still being mounted
        are left for later."""
        count = max(self._far_above_count(), PRUNE_BATCH if self._over_count() else 0)
        if not count:
            return
        doomed: list[Widget] = []
        while self._items and len(doomed) < count:
            widget = self._items[0]
            if widget is self.answer or not widget.is_mounted:
                break
            doomed.append(self._items.popleft())
        if not doomed:
            return
        lost = 0
        for widget in doomed:
            if isinstance(widget, ToolPane):
                self.panes.pop(widget.tool_use_id, None)
            entry = entry_for(widget)
            if entry is None:
                lost += 1
            else:
                self._earlier.append(entry)
        if lost:
            self.pruned += lost
            self._pruned_label.update(
                f"… {self.pruned} earlier item{'s' if self.pruned != 1 else ''} not shown "
                "(still in the conversation)"
            )
            self._pruned_label.display = True
        self.remove_children(doomed)

    def _over_count(self) -> bool:
        return len(self._items) > self.max_widgets

    def _far_above_count(self) -> int:
        """While the person follows the end: how many of the oldest mounted items lie
        wholly above the newest `KEEP_SCREENS` screens, once they make a screenful
        (0 otherwise, and 0 while the person reads further up: nothing moves under
        them)."""
        if not self.is_mounted or self._later or self.scroll_y < self.max_scroll_y - self._near():
            return 0
        keep, total = self._screenful(KEEP_SCREENS), 0
        index = len(self._items)
        while index > 0 and total < keep:
            index -= 1
            total += self._items[index].outer_size.height
        above = sum(self._items[i].outer_size.height for i in range(index))
        return index if above >= self._screenful(1) else 0

    async def clear(self) -> None:
        self.answer = None
        self.panes.clear()
        self.pruned = 0
        self._filling = 0
        self._fill_held = False
        if self._fill_timer is not None:
            self._fill_timer.stop()
            self._fill_timer = None
        self._items.clear()
        self._head.clear()
        self._earlier.clear()
        self._later.clear()
        self._pruned_label.display = False
        doomed = [c for c in self.children if c is not self._pruned_label]
        await self.remove_children(doomed)
