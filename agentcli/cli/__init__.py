"""The command line: argv, the subcommands (`config`, `mcp`, `--rewind-to`), start-up."""
