"""Console entry point (`agentcli`, `python -m agentcli`)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from agentcli.cli.compile_cache import install

    install()  # first: what Python compiles at run time is kept between runs
    from agentcli.cli.main import run
    from agentcli.config.credentials import keep_credentials_private

    keep_credentials_private()  # no process agentcli starts inherits its API key
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:  # `agentcli mcp list | head -1`: the reader had what it wanted
        from agentcli.frontends.output_streams import EXIT_STDOUT_GONE, point_stdout_at_devnull

        point_stdout_at_devnull()  # what is still buffered must not fail again at exit
        return EXIT_STDOUT_GONE


if __name__ == "__main__":
    sys.exit(main())
