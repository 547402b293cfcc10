"""What many test files share: fixtures, runners of the real binary, the parsed source.

tests/README.md says what each module holds and how the tiers are marked.
"""
