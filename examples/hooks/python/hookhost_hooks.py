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
from typing import Any, List, Optional

from componentize_py_types import Err as _Err
from wit_world.imports import state as _wit_state
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


class StateError(Exception):
    """A state call failed. `kind` is "quota" (over a host bound: nothing was written),
    "invalid" (an empty key, `incr` on a value that is not an integer) or "unavailable" (the
    host's store cannot be reached); the message says which bound, value or file."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


_STATE_ERRORS = (
    (_wit_state.StateError_Quota, "quota"),
    (_wit_state.StateError_Invalid, "invalid"),
    (_wit_state.StateError_Unavailable, "unavailable"),
)


def _state_call(name: str, *args):
    try:
        return getattr(_wit_state, name)(*args)
    except _Err as e:
        kind = next((k for cls, k in _STATE_ERRORS if isinstance(e.value, cls)), "unavailable")
        raise StateError(kind, e.value.value) from None


class state:
    """This hook's state in the current session (contract 0.3.0): string keys and values the
    host keeps across events and `hookhost run` processes until the session ends or the value
    expires (24 hours after its last write by default). Only this plugin, in this session,
    sees them. Each call raises `StateError` when it fails; a hook that lets it propagate has
    its `on_error` decide.

        n = state.incr("blocks")            # 1, 2, 3, ... in this session
        state.set_json("last", {"tool": "Bash"})
    """

    @staticmethod
    def get(key: str) -> Optional[str]:
        """The value under `key`, if set and not expired."""
        return _state_call("get", key)

    @staticmethod
    def set(key: str, value: str, ttl_seconds: Optional[int] = None) -> None:
        """Set `key` to `value`, for at most `ttl_seconds` when given."""
        _state_call("set", key, value, ttl_seconds)

    @staticmethod
    def delete(key: str) -> None:
        """Delete `key` (nothing happens when it is not set)."""
        _state_call("delete", key)

    @staticmethod
    def incr(key: str, delta: int = 1, ttl_seconds: Optional[int] = None) -> int:
        """Add `delta` to the integer under `key` (not set: 0) and return the sum; atomic."""
        return _state_call("incr", key, delta, ttl_seconds)

    @staticmethod
    def keys(prefix: str = "") -> List[str]:
        """This hook's keys in this session that start with `prefix`, sorted."""
        return _state_call("keys", prefix)

    @staticmethod
    def get_json(key: str) -> Any:
        """The JSON value under `key` (None when not set)."""
        text = state.get(key)
        return None if text is None else json.loads(text)

    @staticmethod
    def set_json(key: str, value: Any, ttl_seconds: Optional[int] = None) -> None:
        """Set `key` to `value` as JSON text."""
        state.set(key, json.dumps(value), ttl_seconds)
