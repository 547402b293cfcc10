"""Console entry point (`agentcli`, `python -m agentcli`).

`agentcli --version` and `agentcli --help` alone are answered here, before anything
else loads (the compile cache, the credentials guard, the run's modules): each must
answer within 100 ms, and Python's own start is most of that. `--help` builds only the
parser (cli/main.py `build_parser`, whose modules import nothing heavy).
"""

from __future__ import annotations

import sys

VERSION_FLAGS = (["--version"], ["-v"])
HELP_FLAGS = (["--help"], ["-h"])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        if args in VERSION_FLAGS:  # what argparse's version action prints
            from agentcli import __version__

            print(f"agentcli {__version__}")
            return 0
        if args in HELP_FLAGS:
            from agentcli.cli.main import build_parser

            build_parser().print_help()
            return 0
        from agentcli.cli.compile_cache import install

        install()  # first: what Python compiles at run time is kept between runs
        from agentcli.cli.main import run
        from agentcli.config.credentials import keep_credentials_private

        keep_credentials_private()  # no process agentcli starts inherits its API key
        return run(args)
    except BrokenPipeError:  # `agentcli mcp list | head -1`: the reader had what it wanted
        from agentcli.frontends.output_streams import EXIT_STDOUT_GONE, point_stdout_at_devnull

        point_stdout_at_devnull()  # what is still buffered must not fail again at exit
        return EXIT_STDOUT_GONE


if __name__ == "__main__":
    sys.exit(main())
