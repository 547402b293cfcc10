"""The app's widgets, one concern per module.

Importing any of them first mends three things in Textual (see textual_private.py):
a widget whose height changes while its layout is pending is laid out at its new
height, an item of the conversation whose content grew deep inside it (a diff in
a tool pane) is too, and a removed widget's render caches leave memory with it (a
live session removes thousands of widgets; Textual kept the caches of the last 1024).
"""

from agentcli.frontends.tui.textual_private import (
    count_every_layout_request,
    free_removed_widgets_render_caches,
    lay_out_nested_changes_in_streams,
)

count_every_layout_request()
free_removed_widgets_render_caches()
lay_out_nested_changes_in_streams()
