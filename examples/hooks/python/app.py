"""The example guard hook in Python: blocks destructive shell commands, turns
`git push --force` into `--force-with-lease`, and adds context to every prompt. The same policy
is written in Rust, JavaScript and C; `scenarios.toml` says what it must do.

Build: ./build.sh (componentize-py, world `hook`). Test: hookhost test --plugin hook.wasm scenarios.toml
"""

import re

from wit_world import exports
from wit_world.imports import types as t

from hookhost_hooks import StateError, add_context, block, passes, rewrite_input, settings_of, shell_command, state, tool_arguments

USER_MESSAGE = "The guard hook blocked this command: it would destroy data."
PROMPT_CONTEXT = "Guard hook: destructive shell commands are blocked; git push --force becomes --force-with-lease."
ROOT_OR_HOME = ("/", "/*", "~", "~/", "$HOME")
FORCE = ("--force", "-f")
# Compiled at import: the build snapshots the module after importing it, so every call starts
# with the pattern ready instead of compiling it again in its fresh instance (~0.1 ms a call).
SPACES = re.compile(r"[ \t\n\r]+")


def words(command: str) -> list:
    """Words split on spaces, tabs and line breaks."""
    return [w for w in SPACES.split(command) if w]


def destructive(ws: list):
    if any(w.startswith("mkfs") for w in ws):
        return "destructive command: formats a filesystem"
    recursive = any(w == "--recursive" or (w.startswith("-") and not w.startswith("--") and ("r" in w or "R" in w)) for w in ws)
    if "rm" in ws and recursive and any(w in ROOT_OR_HOME for w in ws):
        return "destructive command: recursive delete of a root or home directory"
    return None


def lease_instead_of_force(ws: list):
    if len(ws) < 2 or ws[:2] != ["git", "push"] or not any(w in FORCE for w in ws):
        return None
    return " ".join("--force-with-lease" if w in FORCE else w for w in ws)


class Handler(exports.Handler):
    def validate_settings(self, settings: str) -> None:
        settings_of(settings)

    def handle(self, event: t.Event, ctx: t.Context) -> t.Decision:
        if isinstance(event, t.Event_UserPromptSubmit):
            return passes(add_context(PROMPT_CONTEXT))
        command = shell_command(event)
        if command is None:
            return passes()
        ws = words(command)
        reason = destructive(ws)
        if reason:
            # Count this session's blocks in the hook's state (contract 0.3.0). A store the host
            # cannot reach leaves the count out: it never lets the command through.
            try:
                reason = f"{reason} (block {state.incr('blocks')} in this session)"
            except StateError:
                pass
            return block(reason, user_message=USER_MESSAGE)
        args = tool_arguments(event) or {}
        # The rewrite applies to a `command` string, the common shape.
        safer = lease_instead_of_force(ws) if isinstance(args.get("command"), str) else None
        if safer:
            args["command"] = safer
            return passes(rewrite_input(args))
        return passes()
