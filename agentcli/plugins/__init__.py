"""Claude Code's plugins: folders that bring commands, agents, skills, hooks and MCP servers.

- manifest.py: one plugin folder and its `.claude-plugin/plugin.json`;
- marketplaces.py: `.claude-plugin/marketplace.json` folders, `extraKnownMarketplaces`;
- enabled.py: which plugins a session loads (`--plugin-dir`, the SDK's `plugins`,
  `enabledPlugins`), folder trust included;
- places.py: where a session's command files, agent files and skills come from
  (the `--setting-sources` layers and the plugins), read by each loader;
- hooks.py, servers.py: a plugin's hooks and MCP servers, `${CLAUDE_PLUGIN_ROOT}` filled in.

`/plugin` (commands/plugin_command.py) lists them with what each brought.

The loaders of each part are the existing ones (commands/command_files.py,
agents/definitions.py, skills/loader.py, config/hooks.py, mcp/config/): this
package only says which plugin folders there are (docs/plugins.md).
"""
