"""The analysis of Bash command lines behind the permission check.

Parse, don't pattern-match: a line is parsed with a real bash grammar
(parse.py), checked against the constructs we model (constructs.py), its
words expanded as bash would (words.py), every simple command collected with
the folder it runs in (commands.py) and looked through wrappers
(wrappers.py). check.py turns that into what the policy asks: do deny or ask
rules match, does a read-only command read a denied file, is the line
allowed. The parser is imported on the first check only.
"""
