"""Background shells: Bash's `run_in_background`, and the tools that read and end them.

- tasks.py: the session's registry of tasks (the engine owns it, on the Workspace;
  front ends see it as a `TaskBoard`), and how they all end with agentcli.
- output_file.py: each task's output, a private file of bounded size.
- tools.py: TaskOutput and TaskStop, with Claude Code's older names BashOutput and
  KillShell accepted as aliases.
"""
