"""The analysis of Bash command lines behind the permission check.

Parse, don't pattern-match: a line is parsed with a real bash grammar
(parse.py) and checked against the constructs we model (constructs.py,
shellstate.py); its words are expanded as bash would (words.py); every
simple command is collected with the folder it runs in (commands.py,
folders.py, model.py) and looked through wrappers, read with their real
options (wrappers.py, runners.py, shells.py, options.py, unwrapped.py) and
the command strings programs run (cmdstrings.py); arithmetic on literals
is evaluated, on names it is not understood (arithmetic.py, testexpr.py).

check.py answers the policy's questions from that: do deny or ask rules
match (rulematch.py, specifiers.py), does something read a file a Read deny
rule covers (reading.py, paths.py, places.py, gitreads.py), is every command
allowed (judge.py, secrets.py), may it run unasked in the sandbox
(confined.py), which rule would allow it (suggest.py). The parser is
imported on the first check only.
"""
