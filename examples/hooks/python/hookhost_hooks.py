"""Helpers for hookhost hooks written in Python.

Build with componentize-py for the `hook` world of hookhost's WIT (`hookhost wit` writes it):

    componentize-py -d wit -w hook componentize app -o hook.wasm

Put this file next to your `app.py`. It builds decisions and reads events in the types
componentize-py generates (`wit_world.imports.types`), so a hook reads as its policy:

    from hookhost_hooks import block, passes, rewrite_input, add_context, shell_command

    class Handler(exports.Handler):
        def validate_settings(self, settings): settings_of(settings)
        def handle(self, event, ctx):
            command = shell_command(event)
            if command and "rm -rf" in command:
                return block("recursive delete", user_message="That command is blocked by policy.")
            return passes()
"""

import json
from typing import Any, Optional

from wit_world.imports import types as t

#: Tool names that run shell commands, as the runtimes name them.
SHELL_TOOLS = ("bash", "Bash", "shell", "run_shell_command", "exec_command")


def passes(*effects: "t.Effect") -> "t.Decision":
    """No opinion (with any effects given)."""
    return t.Decision(t.Verdict_Pass(), list(effects))


def allow(reason: Optional[str] = None, *effects: "t.Effect") -> "t.Decision":
    """Approve the action."""
    return t.Decision(t.Verdict_Allow(reason), list(effects))


def ask(reason: Optional[str] = None) -> "t.Decision":
    """Ask the human first."""
    return t.Decision(t.Verdict_Ask(reason), [])


def block(reason: str, user_message: Optional[str] = None) -> "t.Decision":
    """Refuse the action: `reason` goes to the model, `user_message` to the human."""
    return t.Decision(t.Verdict_Block(t.BlockInfo(reason, user_message)), [])


def halt(reason: Optional[str] = None) -> "t.Decision":
    """Stop the agent."""
    return t.Decision(t.Verdict_Halt(reason), [])


def rewrite_input(arguments: dict) -> "t.Effect":
    """Replace the tool call's arguments (a JSON object)."""
    if not isinstance(arguments, dict):
        raise TypeError("rewrite_input takes the tool's arguments as a dict")
    return t.Effect_RewriteInput(json.dumps(arguments))


def rewrite_prompt(message: str) -> "t.Effect":
    """Replace the user's prompt."""
    return t.Effect_RewritePrompt(message)


def rewrite_output(output: Any) -> "t.Effect":
    """Replace the tool's output (any JSON value)."""
    return t.Effect_RewriteOutput(json.dumps(output))


def add_context(text: str) -> "t.Effect":
    """Add context for the model."""
    return t.Effect_AddContext(text)


def notify_user(text: str) -> "t.Effect":
    """Show the human a message."""
    return t.Effect_NotifyUser(text)


def tool_call(event: "t.Event") -> Optional["t.ToolCall"]:
    """The tool call of a pre_tool_use or permission_request event."""
    if isinstance(event, (t.Event_PreToolUse, t.Event_PermissionRequest)):
        return event.value
    return None


def tool_arguments(event: "t.Event") -> Optional[dict]:
    """The arguments of the event's tool call (or result), parsed."""
    if isinstance(event, (t.Event_PreToolUse, t.Event_PermissionRequest, t.Event_PostToolUse, t.Event_ToolResultTransform)):
        value = json.loads(event.value.arguments)
        return value if isinstance(value, dict) else None
    return None


def shell_command(event: "t.Event") -> Optional[str]:
    """The command line of a shell tool call (`command`, or `cmd`), if the event is one."""
    call = tool_call(event)
    if call is None or call.name not in SHELL_TOOLS:
        return None
    args = tool_arguments(event) or {}
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):
        command = " ".join(str(c) for c in command)
    return command if isinstance(command, str) else None


def prompt(event: "t.Event") -> Optional[str]:
    """The user's prompt of a user_prompt_submit event."""
    if isinstance(event, t.Event_UserPromptSubmit):
        return event.value.message
    return None


def settings_of(settings_or_ctx: Any) -> dict:
    """The hook's settings as a dict, from `validate_settings`' string or a context."""
    text = settings_or_ctx if isinstance(settings_or_ctx, str) else settings_or_ctx.settings
    value = json.loads(text or "{}")
    if not isinstance(value, dict):
        raise ValueError("settings must be a JSON object")
    return value
