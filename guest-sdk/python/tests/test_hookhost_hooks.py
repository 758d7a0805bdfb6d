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
