"""The demo world and LocalBoard (a phpBB-markup server); shipped because `demo` is a command."""
