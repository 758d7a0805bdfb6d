"""Native tests of hookhost_hooks, against the types componentize-py generates for the `hook`
world (the Rust test `guest_sdks` generates them and puts them on PYTHONPATH)."""

import json
import unittest

from wit_world.imports import types as t

import hookhost_hooks as h


def call(name, arguments):
    return t.ToolCall(name, "c1", json.dumps(arguments))


class Decisions(unittest.TestCase):
    def test_verdicts(self):
        self.assertEqual(h.passes(), t.Decision(t.Verdict_Pass(), []))
        self.assertEqual(h.allow("fine"), t.Decision(t.Verdict_Allow("fine"), []))
        self.assertEqual(h.ask("sure?"), t.Decision(t.Verdict_Ask("sure?"), []))
        self.assertEqual(h.block("no", user_message="Blocked."), t.Decision(t.Verdict_Block(t.BlockInfo("no", "Blocked.")), []))
        self.assertEqual(h.halt("enough"), t.Decision(t.Verdict_Halt("enough"), []))

    def test_effects(self):
        d = h.passes(h.rewrite_input({"command": "deploy --dry-run"}), h.add_context("ctx"), h.notify_user("hi"))
        self.assertEqual(d.effects, [t.Effect_RewriteInput('{"command": "deploy --dry-run"}'), t.Effect_AddContext("ctx"), t.Effect_NotifyUser("hi")])
        self.assertEqual(h.rewrite_output({"rows": 1}), t.Effect_RewriteOutput('{"rows": 1}'))
        self.assertEqual(h.rewrite_prompt("p"), t.Effect_RewritePrompt("p"))
        with self.assertRaises(TypeError):
            h.rewrite_input("not a dict")


class Events(unittest.TestCase):
    def test_shell_command(self):
        self.assertEqual(h.shell_command(t.Event_PreToolUse(call("Bash", {"command": "rm -rf /"}))), "rm -rf /")
        self.assertEqual(h.shell_command(t.Event_PreToolUse(call("shell", {"cmd": ["ls", "-la"]}))), "ls -la")
        self.assertIsNone(h.shell_command(t.Event_PreToolUse(call("Write", {"command": "x"}))), "not a shell tool")
        self.assertIsNone(h.shell_command(t.Event_UserPromptSubmit(t.Prompt("hi"))))

    def test_prompt_arguments_settings(self):
        self.assertEqual(h.prompt(t.Event_UserPromptSubmit(t.Prompt("hi"))), "hi")
        self.assertEqual(h.tool_arguments(t.Event_PermissionRequest(call("Bash", {"command": "ls"}))), {"command": "ls"})
        self.assertEqual(h.settings_of('{"strict": true}'), {"strict": True})
        self.assertEqual(h.settings_of(""), {})
        with self.assertRaises(ValueError):
            h.settings_of("[1]")


if __name__ == "__main__":
    unittest.main()


class FakeState:
    """The host's `state` interface, natively: a dict, and the errors a host raises."""

    def __init__(self):
        self.values = {}

    def get(self, key):
        return self.values.get(key)

    def set(self, key, value, ttl_seconds):
        if len(value) > 10:
            raise h._Err(h._wit_state.StateError_Quota(f"the value for state key {key!r} is {len(value)} bytes; the limit is 10"))
        self.values[key] = value

    def delete(self, key):
        self.values.pop(key, None)

    def incr(self, key, delta, ttl_seconds):
        n = int(self.values.get(key, "0")) + delta
        self.values[key] = str(n)
        return n

    def keys(self, prefix):
        return sorted(k for k in self.values if k.startswith(prefix))


class State(unittest.TestCase):
    def setUp(self):
        self.real = h._wit_state
        fake = FakeState()
        for cls in ("StateError_Quota", "StateError_Invalid", "StateError_Unavailable"):
            setattr(fake, cls, getattr(self.real, cls))
        h._wit_state = fake

    def tearDown(self):
        h._wit_state = self.real

    def test_calls_reach_the_interface(self):
        self.assertEqual(h.state.incr("n"), 1)
        self.assertEqual(h.state.incr("n", 4), 5)
        h.state.set_json("j", [1])
        self.assertEqual(h.state.get_json("j"), [1])
        self.assertEqual(h.state.keys(), ["j", "n"])
        h.state.delete("n")
        self.assertIsNone(h.state.get("n"))
        self.assertIsNone(h.state.get_json("n"))

    def test_a_hosts_error_is_a_state_error_of_its_kind(self):
        with self.assertRaises(h.StateError) as caught:
            h.state.set("k", "x" * 11)
        self.assertEqual((caught.exception.kind, caught.exception.message), ("quota", "the value for state key 'k' is 11 bytes; the limit is 10"))

    def test_the_generated_interface_is_what_the_helpers_call(self):
        for name in ("get", "set", "delete", "incr", "keys"):
            self.assertTrue(callable(getattr(self.real, name)), name)
