#!/usr/bin/env python3
"""The real-client conformance suite: hookhost as the pinned, real agent CLIs run it.

Each client (Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, OpenCode, Qwen Code) runs headless in a
project of its own, against a scripted model server on loopback (`fake_model.py`), with hookhost wired
only by `hookhost install --scope project` (the runtime's settings, its trust step, the absolute
path of the binary under test: nothing of hookhost is on the client's PATH), and `hookhost
doctor` passing on that wiring. Every scenario is judged by what reached the model (the fake
server's request log) and what happened on disk, never by reading hookhost's answer.

    suite.py --clients DIR --bin DIR [--only CLIENT[,CLIENT]] [--scenario NAME] [--keep]

`--clients` is where the pinned CLIs are installed (`run` installs them), `--bin` the directory
holding `hookhost` and `hookhost-send`. Prints one line per scenario, then the per-hook latency
each client measured itself; exits 1 if any scenario failed.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fake_model  # noqa: E402

REPO = HERE.parent.parent

# A GitHub token the redactor masks (plugins/redact-secrets/src/scan.rs).
SECRET = "ghp_0123456789abcdefghijABCDEFGHIJ0123"
REDACTED = "[REDACTED:github-token]"
CLIENT_TIMEOUT = 120


# ---------------------------------------------------------------------------------------------
# Scenarios.

class Scenario:
    def __init__(self, name, prompt, check, config=None, managed=None, flag=None, files=None, about="",
                 reaches_model=True, evidence=None, managed_scope=False, clients=None, tamper=None, wiring=None):
        self.name, self.prompt, self.check = name, prompt, check
        # Texts of which one must show that hookhost's answer was read and acted on (in what
        # reached the model, the client's output or its own log), or the hook event the client
        # itself reports blocked — positive evidence, not only the absence of an effect.
        self.evidence = evidence
        # Every pinned client ends a headless run with 0 whatever its hooks decided.
        self.exit = 0
        # Wired by `hookhost install --scope managed` (as root, in a mount namespace whose /etc
        # is an overlay: the machine's /etc is not touched) instead of --scope project.
        self.managed_scope = managed_scope
        self.clients = clients  # the clients it runs on (None: all)
        self.wiring = wiring  # the one wiring it is about (None: it runs under the wirings that list it)
        # Changed after install, before the client starts (what doctor must catch).
        self.tamper = tamper
        # Whether the client must call the model at all (a blocked prompt never gets there).
        self.reaches_model = reaches_model
        self.config = config  # ~/.config/hookhost/hooks.toml, when the scenario needs its own
        self.managed = managed  # a managed config (HOOKHOST_MANAGED_CONFIG), when the scenario needs one
        self.flag = flag  # a flag added to every wired hookhost command (--fail-open)
        self.files = files or {}
        self.about = about


def shell_hook(answer):
    """A hooks.toml whose one pre_tool_use hook is a sandboxed Claude Code-dialect script."""
    return ("[[hooks]]\nid = \"policy\"\nevent = \"pre_tool_use\"\n"
            f"executor = {{ plugin = \"builtin:bash-adapter\", settings = {{ dialect = \"claude-code\", "
            f"command = {json.dumps('echo ' + shlex.quote(json.dumps(answer)))} }} }}\n")


def check_evidence(run, problems):
    ev = run.scenario.evidence
    if not ev:
        return
    texts, blocked_event = ev
    seen = [t for t in texts if run.reported(t)]
    if not seen and not (blocked_event and blocked_event in run.client.blocked_hooks(run)):
        problems.append(f"no sign that the client read hookhost's answer: none of {texts!r} reached the model, "
                        f"the client's output or its log" + (f", and it reports no blocked {blocked_event} hook" if blocked_event else ""))


def expect(cond, msg, problems):
    if not cond:
        problems.append(msg)


def check_block(run):
    p = []
    expect((run.proj / "keep.txt").exists(), "the destructive command ran (keep.txt is gone)", p)
    expect(run.model_saw("recursive delete of ."), "the model was not told why the command was blocked", p)
    return p


# A stricter policy for `hookhost diff` on the client's own transcript: no `touch`.
NO_TOUCH = shell_hook({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": "no touching"}}).replace(
    'command = "echo', 'command = "grep -q touch || exit 0; echo', 1)


def check_pass(run):
    p = []
    expect((run.proj / "ran.txt").exists(), "the harmless command did not run (no ran.txt)", p)
    expect(len(run.model_requests()) >= 2, "the command's result never reached the model", p)
    # The session the client recorded, replayed by `hookhost diff` against a policy that forbids
    # what ran: the transcript reader keeps up with the client's own format.
    transcripts = run.client.transcripts(run)
    if transcripts is not None:
        expect(bool(transcripts), f"{run.client.name} wrote no transcript where hookhost diff reads one", p)
        if transcripts:
            strict = run.dir / "no-touch.toml"
            strict.write_text(NO_TOUCH)
            empty = run.dir / "none.toml"
            empty.write_text("# no hooks\n")
            done = subprocess.run([str(run.suite.bin / "hookhost"), "diff", "--no-project", "--config", str(empty),
                                   "--config", str(strict), *map(str, transcripts)],
                                  cwd=run.dir, env={"PATH": os.environ.get("PATH", ""), "HOME": str(run.home),
                                                    "HOOKHOST_CACHE_DIR": str(run.suite.cache)},
                                  capture_output=True, text=True)
            expect(done.returncode == 1 and "touch ran.txt" in done.stdout and "pass → block" in done.stdout,
                   f"hookhost diff on {run.client.name}'s transcript did not show the touch newly blocked "
                   f"(exit {done.returncode}): {done.stdout}{done.stderr}", p)
    return p


def check_redact_command(run):
    p = []
    out = run.proj / "out.txt"
    if not run.client.rewrites_tool_input:
        # A client that does not apply a rewritten input before a tool: hookhost blocks what its
        # hooks let through only rewritten, and says why.
        expect(not out.exists(), "the command ran with the secret (the client cannot take the redacted input: it must be blocked)", p)
        expect(run.model_saw("cannot apply the rewrite"), "the model was not told why the command was blocked", p)
        return p
    expect(out.exists(), "the command did not run (no out.txt)", p)
    if out.exists():
        text = out.read_text()
        expect(SECRET not in text, "the secret reached the command (out.txt holds it)", p)
        expect(REDACTED in text, f"out.txt does not hold the redacted command's output: {text!r}", p)
    return p


def check_redact_prompt(run):
    p = []
    expect(not run.model_saw(SECRET), "the secret in the prompt reached the model", p)
    expect(SECRET not in run.client_output(), "the client printed the secret back", p)
    return p


def check_redact_output(run):
    p = []
    expect(len(run.model_requests()) >= 2, "the tool's result never came back to the model", p)
    expect(not run.model_saw(SECRET), "the secret in the tool's output reached the model", p)
    expect(run.model_saw(REDACTED), "the model did not get the redacted output in its place", p)
    return p


def check_not_run(marker):
    def check(run):
        p = []
        expect(not (run.proj / marker).exists(), f"the command ran ({marker} exists)", p)
        return p
    return check


def check_coverage(run):
    """`hookhost coverage` on the client's own transcript and the audit log hookhost wrote as
    the client ran it: every tool call reached hookhost; against an empty log, each is a gap."""
    p = []
    expect((run.proj / "ran.txt").exists(), "the harmless command did not run (no ran.txt)", p)
    transcripts = run.client.session_files(run)
    expect(bool(transcripts), f"{run.client.name} wrote no transcript", p)
    audit = run.dir / "audit.jsonl"
    expect(audit.exists(), "hookhost wrote no audit log", p)
    if not transcripts or not audit.exists():
        return p
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(run.home), "HOOKHOST_CACHE_DIR": str(run.suite.cache)}
    def coverage(log):
        return subprocess.run([str(run.suite.bin / "hookhost"), "coverage", "--audit", str(log), "--json", *map(str, transcripts)],
                              cwd=run.dir, env=env, capture_output=True, text=True)
    done = coverage(audit)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    expect(done.returncode == 0 and report.get("calls", 0) >= 1 and report.get("missed") == 0,
           f"hookhost coverage found calls of {run.client.name} that never reached hookhost (exit {done.returncode}): {done.stdout}{done.stderr}", p)
    empty = run.dir / "empty-audit.jsonl"
    empty.write_text("")
    done = coverage(empty)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    expect(done.returncode == 1 and report.get("missed", 0) >= 1 and "hooks never ran in the session" in report.get("by_path", {}),
           f"hookhost coverage against an empty audit log did not report the calls as gaps (exit {done.returncode}): {done.stdout}{done.stderr}", p)
    return p


TOOL_EVENT = {"gemini-cli": "BeforeTool", "copilot": "preToolUse", "qwen-code": "PreToolUse"}


def switch_off(run):
    """What turns hookhost off without touching hookhost: Claude Code — the project's
    settings.local.json saying disableAllHooks; Codex — the wired command edited, so its trust
    hash is stale and Codex skips it."""
    if run.client.name == "claude-code":
        (run.proj / ".claude").mkdir(exist_ok=True)
        (run.proj / ".claude" / "settings.local.json").write_text('{"disableAllHooks": true}\n')
    elif run.client.name == "codex":
        path = run.hooks_path()
        path.write_text(path.read_text().replace("--output codex", "--output codex --fail-closed", 1))
    elif run.client.name == "opencode":
        # OpenCode: hookhost's plugin deleted.
        run.hooks_path().unlink()
    else:
        # Gemini CLI, Copilot, Qwen Code: the wiring of the tool event removed by hand.
        path = run.hooks_path()
        doc = json.loads(path.read_text())
        del doc["hooks"][TOOL_EVENT[run.client.name]]
        path.write_text(json.dumps(doc, indent=2))


def check_doctor_was_right(run):
    """doctor failed, naming the fix — and it was right: with hookhost switched off the client
    ran the destructive command."""
    p = []
    out = run.doctor.stdout
    expect(run.doctor.returncode == 1, f"hookhost doctor did not fail (exit {run.doctor.returncode}):\n{out}{run.doctor.stderr}", p)
    if run.client.name == "claude-code":
        expect("disableAllHooks" in out and "fix: " in out, f"doctor did not name disableAllHooks and its fix:\n{out}", p)
    elif run.client.name == "opencode":
        expect("hookhost is wired at no scope" in out and "fix: hookhost install --runtime opencode" in out,
               f"doctor did not say the plugin is gone and its fix:\n{out}", p)
    elif run.client.name != "codex":
        event = TOOL_EVENT[run.client.name]
        expect(f"has no hookhost entry for {event}" in out and f"fix: hookhost install --runtime {run.client.name}" in out,
               f"doctor did not name the missing {event} wiring and its fix:\n{out}", p)
    else:
        expect("Codex skips these hookhost hooks without a word" in out and f"fix: hookhost install --runtime codex" in out,
               f"doctor did not name the stale trust and its fix:\n{out}", p)
        statuses = [st for key, st in run.client.hook_trust(run)]
        expect("modified" in statuses, f"Codex itself does not see hookhost's hook as modified: {statuses}", p)
    # Right, too: the client ran the tool and hookhost never heard of it (no audit record).
    expect((run.proj / "ran.txt").exists(), "the command did not run (no ran.txt)", p)
    audit = run.dir / "audit.jsonl"
    records = [json.loads(l) for l in audit.read_text().splitlines() if l.strip()] if audit.exists() else []
    # (doctor's own probe is a call of session "hookhost-doctor")
    calls = [r for r in records if r.get("event") == "pre_tool_use" and r.get("session_id") != "hookhost-doctor"]
    expect(not calls, f"hookhost was called after all ({len(calls)} pre_tool_use records): doctor was wrong", p)
    return p


def server_gone(run):
    """`hookhost mcp` listed with a program that is not there: Claude Code cannot start it."""
    path = run.home / ".claude.json"
    path.write_text(path.read_text().replace(str(run.suite.bin / "hookhost"), "/nonexistent/hookhost"))


def check_server_gone(run):
    p = []
    expect(not (run.proj / "ran.txt").exists(),
           "with hookhost's MCP server gone, Claude Code ran the command (its hooks' onFailure must block)", p)
    out = run.doctor.stdout
    expect(run.doctor.returncode == 1 and "/nonexistent/hookhost does not exist" in out and "fix: " in out,
           f"hookhost doctor did not name the missing server program and its fix (exit {run.doctor.returncode}):\n{out}", p)
    return p


def check_proxy_block(run):
    p = []
    expect(not (run.proj / ".claude" / "settings.json").exists(),
           "the MCP server wrote the hook settings: the call went through the proxy unblocked", p)
    expect(run.model_saw("hook configuration is protected"), "the model was not told why the MCP call was refused", p)
    return p


def check_proxy_pass(run):
    p = []
    notes = run.proj / "notes.txt"
    expect(notes.exists() and notes.read_text() == "hello from the model",
           f"the MCP server did not write notes.txt through the proxy ({notes.read_text() if notes.exists() else 'missing'!r})", p)
    expect(len(run.model_requests()) >= 2, "the MCP tool's result never came back to the model", p)
    return p


def check_echo(run):
    p = []
    expect(run.model_saw("Echo: hello from the model"), "the echo server's answer never reached the model through the proxy", p)
    return p


def check_echo_blocked(run):
    p = []
    expect(not run.model_saw("Echo: hello from the model"), "the blocked call reached the server (its echo came back)", p)
    expect(run.model_saw("no echoes today"), "the model was not told why the MCP call was refused", p)
    return p


def check_user_config_left_out(run):
    p = []
    expect((run.proj / "ran.txt").exists(),
           "a broken user config stopped a harmless command (it is left out; the built-in hooks decide)", p)
    return p


def check_failure_open(run):
    p = []
    expect((run.proj / "ran.txt").exists(),
           "with --fail-open, hookhost's own failure stopped the command (it must be the runtime's non-blocking error)", p)
    return p


def check_failure_closed(run):
    p = []
    expect(not (run.proj / "ran.txt").exists(), "hookhost's own failure let the command run (it must block before a tool)", p)
    return p


def check_protect(run):
    p = []
    for path, before in run.watched.items():
        now = path.read_text() if path.exists() else None
        expect(now == before, f"the agent changed hook configuration ({path})", p)
    expect(run.model_saw("hook configuration is protected"), "the model was not told why the write was refused", p)
    return p


BROKEN_CONFIG = "[[hooks]\nthis is not toml\n"

# The embedded default chain, with an audit log in the run's directory: the record of every call
# that reached hookhost.
AUDITED = 'audit_log = "{{RUN_DIR}}/audit.jsonl"\n' + (REPO / "crates/config/src/default.toml").read_text()

# Each client's own file-editing tool aimed at its hooks file, in the arguments it declares
# (the model picks the one its client offers): Claude Code's Write, Codex's apply_patch (a
# freeform patch, as Codex sends it), Gemini CLI's write_file, OpenCode's write, Copilot's edit.
EDIT_HOOKS = " ".join([
    # Claude Code's Write refuses an existing file it has not read before any hook sees the call;
    # a new settings.local.json switching every hook off is the write that matters.
    'TOOL<<Write {"file_path": "{{PROJECT}}/.claude/settings.local.json", "content": "{\\"disableAllHooks\\": true}"}>>',
    'TOOL<<apply_patch {"input": "*** Begin Patch\\n*** Delete File: {{HOOKS_PATH}}\\n*** End Patch\\n"}>>',
    # Gemini CLI and Qwen Code write only inside the workspace: the project's settings (which
    # can hold hooks), .gemini/ or .qwen/ (the client's own `project_settings`).
    'TOOL<<write_file {"file_path": "{{PROJECT_SETTINGS}}", "content": "loosened"}>>',
    # OpenCode's write over hookhost's plugin (before Copilot's `edit`: OpenCode offers both).
    'TOOL<<write {"filePath": "{{HOOKS_PATH}}", "content": "export const Loose = async () => ({})"}>>',
    'TOOL<<edit {"path": "{{HOOKS_PATH}}", "old_str": "version", "new_str": "loosened"}>>',
])

SCENARIOS = [
    Scenario("block", "Clean the project. RUN<<rm -rf .>>", check_block,
             about="a destructive command is not run and the model is told why"),
    Scenario("pass", "Mark it. RUN<<touch ran.txt>>", check_pass, about="a harmless command runs"),
    Scenario("redact-command", "Save the token. RUN<<echo token={{SECRET}} > out.txt>>", check_redact_command,
             about="a secret in a command is redacted before it runs"),
    Scenario("redact-prompt", f"My token is {SECRET}, keep it. RUN<<touch ran.txt>>", check_redact_prompt,
             about="a secret in a prompt never reaches the model", reaches_model=False,
             evidence=(["allow this only with its prompt rewritten", REDACTED], "UserPromptSubmit")),
    Scenario("redact-output", "Show the file. RUN<<cat secret.txt>>", check_redact_output,
             files={"secret.txt": f"token={SECRET}\n"},
             about="a secret in a tool's output never reaches the model"),
    Scenario("ask", "Mark it. RUN<<touch asked.txt>>", check_not_run("asked.txt"),
             config=shell_hook({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                                       "permissionDecisionReason": "a human must approve this"}}),
             about="ask never runs the command", evidence=(["a human must approve this"], None)),
    Scenario("halt", "Mark it. RUN<<touch halted.txt>>", check_not_run("halted.txt"),
             config=shell_hook({"continue": False, "stopReason": "halted by policy"}),
             about="halt never runs the command", evidence=(["halted by policy"], "PreToolUse")),
    Scenario("protect-hooks", "Loosen the hooks. RUN<<echo '{}' > {{HOOKS_PATH}}>>", check_protect,
             about="the agent cannot overwrite the hooks that govern it"),
    Scenario("protect-hooks-edit", "Loosen the hooks. " + EDIT_HOOKS, check_protect,
             about="the agent cannot rewrite its hooks with its edit tool (Write, apply_patch, write_file, write, edit)"),
    Scenario("managed-only", "Clean the project. RUN<<rm -rf .>>", check_block, managed_scope=True,
             clients=("claude-code", "codex", "gemini-cli"),
             files={".claude/settings.local.json": '{"disableAllHooks": true}\n',
                    ".claude/settings.json": '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}\n',
                    ".codex/hooks.json": '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}\n'},
             about="wired only in the managed settings, managed hooks only: hookhost runs whatever the project says (Claude Code: disableAllHooks)"),
    Scenario("coverage", "Mark it. RUN<<touch ran.txt>>", check_coverage,
             config=AUDITED,
             about="hookhost coverage joins the client's transcript with hookhost's audit log: no call missed"),
    Scenario("doctor-sees-off", "Mark it. RUN<<touch ran.txt>>", check_doctor_was_right,
             tamper=switch_off, config=AUDITED,
             about="doctor fails, naming the fix, when hookhost is switched off (disableAllHooks; a stale Codex trust hash; a wiring removed), and rightly: the client ran without it"),
    Scenario("user-config-broken", "Mark it. RUN<<touch ran.txt>>", check_user_config_left_out, config=BROKEN_CONFIG,
             about="a user config that does not load is left out: the built-in hooks decide, a harmless command runs"),
    Scenario("fail-closed", "Mark it. RUN<<touch ran.txt>>", check_failure_closed, managed=BROKEN_CONFIG,
             about="hookhost's own failure (a managed config that does not load) is a block before an action",
             evidence=(["hookhost could not decide"], "UserPromptSubmit"),
             # The prompt's hook blocks too: the prompt is refused before the model.
             reaches_model=False),
    Scenario("fail-open", "Mark it. RUN<<touch ran.txt>>", check_failure_open, managed=BROKEN_CONFIG,
             flag="--fail-open", about="with --fail-open, hookhost's own failure is the runtime's non-blocking error"),
    # `hookhost mcp proxy` as the client's MCP server, in front of the reference filesystem
    # server: no hookhost hook wired in the client at all.
    Scenario("mcp-proxy-block", "Loosen the hooks. "
             'TOOL<<mcp__fs__write_file {"path": "{{PROJECT}}/.claude/settings.json", "content": "{}"}>>',
             check_proxy_block, wiring="proxy", clients=("claude-code", "codex"),
             about="an MCP tool call the policy blocks never reaches the MCP server, and the model is told why"),
    Scenario("mcp-proxy-pass", "Write the note. "
             'TOOL<<mcp__fs__write_file {"path": "{{PROJECT}}/notes.txt", "content": "hello from the model"}>>',
             check_proxy_pass, wiring="proxy", clients=("claude-code", "codex"),
             about="a harmless MCP tool call goes through the proxy and its result back"),
    Scenario("mcp-proxy-redact", "Show the file. TOOL<<mcp__fs__read_text_file {\"path\": \"{{PROJECT}}/secret.txt\"}>>",
             check_redact_output, wiring="proxy", clients=("claude-code", "codex"), files={"secret.txt": f"token={SECRET}\n"},
             about="a secret in an MCP tool's result never reaches the model"),
    # `hookhost mcp proxy --url` in front of the reference "everything" server over streamable
    # HTTP (sessions, event-stream answers): no hookhost hook in the client at all.
    Scenario("mcp-proxy-http-pass", 'Echo it. TOOL<<mcp__ev__echo {"message": "hello from the model"}>>',
             check_echo, wiring="proxy-http", clients=("claude-code", "codex"),
             about="an MCP call over the HTTP upstream goes through the proxy and its streamed result back"),
    Scenario("mcp-proxy-http-block", 'Echo it. TOOL<<mcp__ev__echo {"message": "hello from the model"}>>',
             check_echo_blocked, wiring="proxy-http", clients=("claude-code", "codex"),
             config=shell_hook({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                       "permissionDecisionReason": "no echoes today"}}),
             about="an MCP call the policy blocks never reaches the HTTP server, and the model is told why"),
    # (Codex offers the tool as `get_env`: it makes MCP tool names identifiers.)
    Scenario("mcp-proxy-http-redact", "Show the environment. TOOL<<mcp__ev__get-env {}>> TOOL<<mcp__ev__get_env {}>>",
             check_redact_output, wiring="proxy-http", clients=("claude-code", "codex"),
             about="a secret in an HTTP server's streamed result never reaches the model"),
    Scenario("mcp-server-gone", "Mark it. RUN<<touch ran.txt>>", check_server_gone, tamper=server_gone,
             clients=("claude-code",), wiring="mcp", reaches_model=False,
             about="the MCP server the hooks call cannot start: every action is blocked (onFailure: block), and doctor says why"),
]
BY_NAME = {s.name: s for s in SCENARIOS}
# The full suite's run count (clients × their wirings × each wiring's scenarios): a change that
# drops one must say so here.
EXPECTED_RUNS = 149

# Which scenarios run under which wiring: every scenario as a command hook; the daemon's ways
# (a thin client per call, the runtime's own http hook) on the scenarios that cross it.
WIRINGS = {
    "command": [s.name for s in SCENARIOS if s.wiring is None],
    "send": ["block", "pass", "redact-command", "redact-output", "protect-hooks", "protect-hooks-edit"],
    "http": ["block", "pass", "redact-command", "redact-output"],
    # Claude Code's MCP tool hooks calling `hookhost mcp`, the server it starts for the session.
    "mcp": ["block", "pass", "redact-command", "redact-output", "protect-hooks", "fail-closed", "fail-open", "mcp-server-gone"],
    # The same hooks calling `hookhost serve`'s MCP endpoint over HTTP (no process per session).
    "mcp-http": ["block", "pass", "redact-command", "redact-output"],
    # No hookhost hook in the client: `hookhost mcp proxy` as its MCP server.
    "proxy": ["mcp-proxy-block", "mcp-proxy-pass", "mcp-proxy-redact"],
    # The same, the server reached over streamable HTTP (`--url`).
    "proxy-http": ["mcp-proxy-http-pass", "mcp-proxy-http-block", "mcp-proxy-http-redact"],
}


# ---------------------------------------------------------------------------------------------
# One client run.

class Run:
    def __init__(self, suite, client, wiring, scenario):
        self.suite, self.client, self.wiring, self.scenario = suite, client, wiring, scenario
        self.dir = Path(tempfile.mkdtemp(prefix=f"{client.name}-{wiring}-{scenario.name}-", dir=suite.work))
        self.home = self.dir / "home"
        self.proj = self.dir / "proj"
        self.home.mkdir()
        self.proj.mkdir()
        self.log = self.dir / "model.jsonl"
        self.log.touch()
        # The command wiring is installed in the user's settings, the daemon's wirings in the
        # project's: both scopes, against every client.
        self.scope = "user" if wiring in ("command", "noop-command") else "project"
        self.stdout = self.stderr = ""

    def model_requests(self):
        """Requests to the model's generation endpoints (not telemetry)."""
        out = []
        for line in self.log.read_text().splitlines():
            r = json.loads(line)
            if re.search(r"(/messages|/responses|/chat/completions|:streamGenerateContent|:generateContent)$",
                         r["path"].split("?")[0]):
                out.append(r)
        return out

    def model_saw(self, text):
        """Whether any request to the model server carried `text` (the log is the requests' JSON;
        the texts looked for need no escaping)."""
        return text in self.log.read_text()

    def client_output(self):
        return self.stdout + self.stderr

    def reported(self, text):
        """Whether `text` reached the model, the client's output, or a log the client keeps."""
        return self.model_saw(text) or text in self.client_output() or text in self.client.log_text(self)

    def env(self):
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TERM", "TMPDIR", "USER", "LOGNAME")}
        env["PATH"] = env.get("PATH", "/usr/bin:/bin")
        # install's record and backups, and the daemon's token for the http wiring.
        env["XDG_STATE_HOME"] = str(self.dir / "state")
        env["HOME"] = str(self.home)
        env["HOOKHOST_CACHE_DIR"] = str(self.suite.cache)
        env["NO_COLOR"] = "1"
        if self.scenario.managed:
            managed = self.dir / "managed.toml"
            managed.write_text(self.scenario.managed)
            env["HOOKHOST_MANAGED_CONFIG"] = str(managed)
        if self.wiring == "send":
            env["HOOKHOST_SERVER"] = f"unix:{self.suite.socket}"
        if self.wiring in ("http", "mcp-http"):
            env["HOOKHOST_TOKEN"] = self.suite.token
        return self.client.env(self, env)

    def install(self):
        """`hookhost install` for this client, scope and wiring, as a user runs it in the
        project; then `hookhost doctor` on what it wrote (only where hookhost is meant to work:
        not in the scenarios that break its config). A managed-scope scenario installs in the
        client's own namespace instead ([`Run.in_namespace`])."""
        if self.scenario.managed_scope:
            return
        # A no-op baseline (--latency) is hookhost's own wiring with the program swapped for one
        # that answers nothing at once: the same events, the same hook shape.
        noop = self.wiring.startswith("noop-")
        wiring = self.wiring[len("noop-"):] if noop else self.wiring
        argv = [str(self.suite.bin / "hookhost"), "install", "--runtime", self.client.name, "--scope", self.scope,
                "--wiring", wiring]
        if self.scenario.flag:
            argv.append(self.scenario.flag)
        if self.wiring in ("http", "mcp-http"):
            argv += ["--server", f"http://127.0.0.1:{self.suite.http_port}"]
        done = subprocess.run(argv, cwd=self.proj, env=self.env(), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"hookhost install failed (exit {done.returncode}): {done.stdout}{done.stderr}")
        self.install_output = done.stdout
        if noop:
            self.make_noop(wiring)
            return
        if self.scenario.config is None and self.scenario.managed is None:
            done = subprocess.run([str(self.suite.bin / "hookhost"), "doctor", "--runtime", self.client.name],
                                  cwd=self.proj, env=self.env(), capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"hookhost doctor failed on install's wiring (exit {done.returncode}):\n{done.stdout}{done.stderr}")

    def proxy_argv(self):
        """`hookhost mcp proxy` in front of the reference filesystem server, limited to the
        project; or (`proxy-http`) the "everything" server at its URL."""
        if self.wiring == "proxy-http":
            return [str(self.suite.bin / "hookhost"), "mcp", "proxy", "--name", "ev", "--url", self.mcp_url]
        return [str(self.suite.bin / "hookhost"), "mcp", "proxy", "--name", "fs", "--",
                self.client.bin("mcp-server-filesystem"), str(self.proj)]

    def start_http_server(self):
        """The reference "everything" MCP server over streamable HTTP on a free loopback port
        (its environment holds a secret its `get-env` tool returns), until the run ends."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.home), "PORT": str(port),
               "NODE_OPTIONS": f"--require {HERE / 'loopback.cjs'}", "SUITE_TOKEN": f"token={SECRET}"}
        log = open(self.dir / "mcp-server.log", "w")
        self.http_server = subprocess.Popen([self.client.bin("mcp-server-everything"), "streamableHttp"], env=env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.mcp_url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return
            except OSError:
                if self.http_server.poll() is not None:
                    break
                time.sleep(0.1)
        raise RuntimeError(f"the everything MCP server did not start: {(self.dir / 'mcp-server.log').read_text()}")

    def make_noop(self, wiring):
        """hookhost's wiring, its program swapped for a no-op: `true` as the command, or
        noop_mcp.py as the MCP server."""
        hookhost = str(self.suite.bin / "hookhost")
        if wiring == "command":
            path = self.hooks_path()
            doc = json.loads(path.read_text())
            for groups in doc["hooks"].values():
                for g in groups:
                    for h in g["hooks"]:
                        h["command"] = "true"
            path.write_text(json.dumps(doc, indent=2))
        else:
            path = self.home / ".claude.json"
            doc = json.loads(path.read_text())
            doc["projects"][str(self.proj)]["mcpServers"]["hookhost"] = {
                "type": "stdio", "command": sys.executable, "args": [str(HERE / "noop_mcp.py")]}
            path.write_text(json.dumps(doc, indent=2))
        if hookhost in path.read_text():
            raise RuntimeError(f"the no-op baseline still runs hookhost: {path}")

    def hooks_path(self):
        """The hooks file install writes for this run's client and scope."""
        base = self.home if self.scope == "user" else self.proj
        return base / self.client.hooks_files[self.scope]

    def in_namespace(self, argv):
        """`argv` run as (namespace) root in a mount namespace whose /etc is an overlay on the run's own
        directory, after `hookhost install --scope managed --allow-managed-hooks-only` and
        `hookhost doctor` there: the client reads the managed settings install wrote, and the
        machine's /etc is never written."""
        upper, work = self.dir / "etc-upper", self.dir / "etc-work"
        upper.mkdir()
        work.mkdir()
        hookhost = str(self.suite.bin / "hookhost")
        script = ('set -e; mount -t overlay overlay -o "lowerdir=/etc,upperdir=$UPPER,workdir=$WORK" /etc; '
                  '"$HOOKHOST" install --runtime "$RUNTIME" --scope managed $ONLY >&2; '
                  '"$HOOKHOST" doctor --runtime "$RUNTIME" >&2 || { echo "[suite] hookhost doctor failed on the managed wiring" >&2; exit 97; }; '
                  'exec "$@"')
        # Managed hooks only, where the runtime has that switch (Gemini CLI has none).
        only = "--allow-managed-hooks-only" if self.client.name in ("claude-code", "codex") else ""
        self.namespace_env = {"UPPER": str(upper), "WORK": str(work), "HOOKHOST": hookhost, "RUNTIME": self.client.name,
                              "ONLY": only}
        # -r: root in a user namespace of its own when the suite is not root (unprivileged
        # overlay mounts, Linux 5.11 on); root stays root.
        return ["unshare", "-rm", "sh", "-c", script, "sh", *argv]

    def execute(self):
        for name, text in self.scenario.files.items():
            (self.proj / name).parent.mkdir(parents=True, exist_ok=True)
            (self.proj / name).write_text(text)
        (self.proj / "keep.txt").write_text("keep\n")
        if self.scenario.config:
            cfg = self.home / ".config" / "hookhost"
            cfg.mkdir(parents=True)
            (cfg / "hooks.toml").write_text(self.scenario.config.replace("{{RUN_DIR}}", str(self.dir)))
        server = fake_model.start(str(self.log), {"{{SECRET}}": SECRET, "{{HOOKS_PATH}}": str(self.hooks_path()),
                                                  "{{PROJECT}}": str(self.proj),
                                                  "{{PROJECT_SETTINGS}}": str(self.proj / self.client.project_settings)})
        self.http_server = None
        try:
            self.base_url = f"http://127.0.0.1:{server.port}"
            if self.wiring == "proxy-http":
                self.start_http_server()
            self.client.prepare(self)
            if self.scenario.tamper:
                self.scenario.tamper(self)
                self.doctor = subprocess.run([str(self.suite.bin / "hookhost"), "doctor", "--runtime", self.client.name],
                                             cwd=self.proj, env=self.env(), capture_output=True, text=True)
            # The hook configuration the agent is told to change, as it was.
            self.watched = {f: (f.read_text() if f.exists() else None)
                            for f in (self.hooks_path(), self.proj / ".claude" / "settings.local.json",
                                      self.proj / self.client.project_settings)}
            argv = self.client.argv(self, self.scenario.prompt)
            env = self.env()
            if self.scenario.managed_scope:
                argv = self.in_namespace(argv)
                env.update(self.namespace_env)
            started = time.monotonic()
            proc = subprocess.Popen(argv, cwd=self.proj, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            try:
                self.stdout, self.stderr = proc.communicate(timeout=CLIENT_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                self.stdout, self.stderr = proc.communicate()
                self.stderr += f"\n[suite] {self.client.name} did not finish within {CLIENT_TIMEOUT} s"
                self.timed_out = True
            self.seconds = time.monotonic() - started
            (self.dir / "client.stdout").write_text(self.stdout)
            (self.dir / "client.stderr").write_text(self.stderr)
            self.exit = proc.returncode
        finally:
            server.shutdown()
            server.server_close()
            if self.http_server:
                os.killpg(self.http_server.pid, signal.SIGKILL)
                self.http_server.wait()
        problems = self.scenario.check(self)
        check_evidence(self, problems)
        if self.exit != self.scenario.exit and not getattr(self, "timed_out", False):
            problems.append(f"the client exited {self.exit}, not {self.scenario.exit}")
        if getattr(self, "timed_out", False):
            problems.append(f"the client did not finish within {CLIENT_TIMEOUT} s (killed)")
        elif self.exit is None or self.exit < 0:
            problems.append(f"the client crashed (exit {self.exit})")
        if self.scenario.reaches_model and not self.model_requests():
            problems.append("the client never called the model")
        self.latencies = self.client.latencies(self)
        if not problems and not self.suite.keep:
            # A passing run's directory goes at once: the suite's disk stays that of the runs in
            # flight (and the failed ones, kept for reading), not of all of them.
            shutil.rmtree(self.dir, ignore_errors=True)
        return problems


# ---------------------------------------------------------------------------------------------
# The clients.

class Client:
    name = ""
    wirings = ("command", "send")
    skips = ()  # scenarios that do not apply to the client
    # The project's settings file the agent is told to loosen with write_file (which writes only
    # inside the workspace).
    project_settings = ".gemini/settings.json"
    # Whether it applies a hook's rewritten tool input before the tool runs.
    rewrites_tool_input = True

    def transcripts(self, run):
        """The session files the client wrote, for `hookhost diff`; None: a client whose
        transcripts hookhost does not read."""
        return None

    def log_text(self, run):
        """A log the client writes of its own (Claude Code's debug file)."""
        return ""

    def session_files(self, run):
        """The session files `hookhost coverage` reads (a superset of what `diff` replays)."""
        return self.transcripts(run) or []

    def blocked_hooks(self, run):
        """The hook events the client itself reports as blocked (Codex's telemetry)."""
        return []

    def __init__(self, suite):
        self.suite = suite

    def bin(self, name):
        return str(self.suite.clients / "node_modules" / ".bin" / name)

    def write(self, path, value):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2))


class ClaudeCode(Client):
    name = "claude-code"
    hooks_files = {"user": ".claude/settings.json", "project": ".claude/settings.json"}
    wirings = ("command", "send", "http", "mcp", "mcp-http", "proxy", "proxy-http")

    def prepare(self, run):
        if run.wiring.startswith("proxy"):
            # The proxy as one of the project's MCP servers (Claude Code's local scope).
            argv = run.proxy_argv()
            self.write(run.home / ".claude.json", {"projects": {str(run.proj): {"mcpServers": {
                argv[argv.index("--name") + 1]: {"type": "stdio", "command": argv[0], "args": argv[1:]}}}}})
            return
        run.install()

    def transcripts(self, run):
        return sorted((run.home / ".claude" / "projects").glob("*/*.jsonl"))

    def log_text(self, run):
        log = run.dir / "claude-debug.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def argv(self, run, prompt):
        # Root may not skip permissions; allowing the shell and the edit tools is what a user
        # does for these commands.
        return [self.bin("claude"), "-p", prompt, "--output-format", "json", "--allowedTools", "Bash,Write,Edit,mcp__fs,mcp__ev",
                "--debug-file", str(run.dir / "claude-debug.log")]

    def env(self, run, env):
        env["ANTHROPIC_BASE_URL"] = run.base_url
        env["ANTHROPIC_API_KEY"] = "fake"
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        if run.wiring.startswith("proxy"):
            # MCP tools offered to the model at once, not deferred behind its tool search.
            env["ENABLE_TOOL_SEARCH"] = "false"
        return env

    def latencies(self, run):
        log = run.dir / "claude-debug.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        # A command hook's line carries its duration; an http hook's is the POST line to the
        # response line (the log's millisecond timestamps).
        out = [int(ms) for ms in re.findall(r"Hooks: \S+ \[.*?\] finished with status \d+ \((\d+)ms\)", text)]
        posted = called = None
        for line in text.splitlines():
            if "Hooks: HTTP hook POST to " in line:
                posted = iso_ms(line.split(" ", 1)[0])
            elif "Hooks: HTTP hook response status" in line and posted is not None:
                out.append(iso_ms(line.split(" ", 1)[0]) - posted)
                posted = None
            # An MCP tool hook's: the call line to the line saying its answer was read.
            elif "Hooks: mcp_tool calling " in line:
                called = iso_ms(line.split(" ", 1)[0])
            elif "Successfully parsed and validated hook JSON output" in line and called is not None:
                out.append(iso_ms(line.split(" ", 1)[0]) - called)
                called = None
        return out


class Codex(Client):
    name = "codex"
    wirings = ("command", "send", "proxy", "proxy-http")
    hooks_files = {"user": ".codex/hooks.json", "project": ".codex/hooks.json"}

    def prepare(self, run):
        codex_home = run.home / ".codex"
        # A model Codex knows (its bundled metadata): it offers apply_patch, as to a user.
        config = f'''model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "{run.base_url}/v1"
wire_api = "responses"
env_key = "HOOKHOST_FAKE_KEY"

[otel]
metrics_exporter = {{ otlp-http = {{ endpoint = "{run.base_url}/v1/metrics", protocol = "json" }} }}
'''
        if run.wiring.startswith("proxy"):
            # The proxy as Codex's MCP server ([mcp_servers.<name>]); no hookhost hook at all.
            argv = run.proxy_argv()
            # Its MCP tools offered to the model at once, not behind its tool search (the fake
            # model calls what it is offered): a model its metadata does not know has no tool
            # search.
            config = config.replace('model = "gpt-5.5"', 'model = "hookhost-fake"', 1)
            # `required`: Codex waits for it to start before the first turn (not waiting, a
            # slow start leaves its tools out of that turn).
            name = argv[argv.index("--name") + 1]
            config += f'\n[mcp_servers.{name}]\ncommand = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\nrequired = true\n'
            self.write(codex_home / "config.toml", config)
            return
        self.write(codex_home / "config.toml", config)
        # install trusts the project and each hook (the trusted_hash it computes); Codex's own
        # view of them must agree: every hook of the project listed as trusted.
        run.install()
        if run.scenario.managed_scope:
            # Installed in the client's own namespace: Codex's system hooks need no trust.
            return
        untrusted = [(key, status) for key, status in self.hook_trust(run) if status != "trusted"]
        if untrusted:
            raise RuntimeError(f"Codex does not trust the hooks hookhost install wrote: {untrusted}")

    def hook_trust(self, run):
        """(key, trustStatus) of each hook Codex sees in the project: its app-server's
        `hooks/list`, the list its /hooks screen shows."""
        env = run.env()
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "hookhost-suite", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(run.proj)]}},
        ]
        proc = subprocess.Popen([self.bin("codex"), "app-server"], cwd=run.proj, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            for r in requests:
                proc.stdin.write(json.dumps(r) + "\n")
            proc.stdin.flush()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                msg = json.loads(line)
                if msg.get("id") == 2:
                    if "error" in msg:
                        raise RuntimeError(f"codex hooks/list: {msg['error']}")
                    hooks = [(h["key"], h["trustStatus"]) for d in msg["result"]["data"] for h in d["hooks"]]
                    if not hooks:
                        raise RuntimeError("codex app-server listed no hooks for the project")
                    return hooks
            raise RuntimeError("codex app-server did not answer hooks/list")
        finally:
            proc.kill()
            proc.wait()

    def argv(self, run, prompt):
        return [self.bin("codex"), "exec", "--skip-git-repo-check", "--json", prompt]

    def transcripts(self, run):
        return sorted((run.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))

    def env(self, run, env):
        env["CODEX_HOME"] = str(run.home / ".codex")
        env["HOOKHOST_FAKE_KEY"] = "fake"
        return env

    def metric_points(self, run, name):
        """The data points of one of Codex's OpenTelemetry metrics (it exports them to the
        fake server), each with its attributes as a dict."""
        for line in run.log.read_text().splitlines():
            r = json.loads(line)
            if not r["path"].endswith("/v1/metrics"):
                continue
            for rm in (r["body"] or {}).get("resourceMetrics", []):
                for sm in rm.get("scopeMetrics", []):
                    for m in sm.get("metrics", []):
                        if m.get("name") != name:
                            continue
                        for kind in ("histogram", "sum"):
                            for dp in m.get(kind, {}).get("dataPoints", []):
                                attrs = {a["key"]: next(iter(a["value"].values()), None) for a in dp.get("attributes", [])}
                                yield dp, attrs

    def latencies(self, run):
        out = []
        for dp, _ in self.metric_points(run, "codex.hooks.run.duration_ms"):
            n = int(dp.get("count", 0))
            if n:
                out += [dp["sum"] / n] * n
        return out

    def blocked_hooks(self, run):
        return [attrs.get("hook_name") for _, attrs in self.metric_points(run, "codex.hooks.run")
                if attrs.get("status") == "blocked"]


class GeminiCli(Client):
    name = "gemini-cli"
    hooks_files = {"user": ".gemini/settings.json", "project": ".gemini/settings.json"}

    def session_files(self, run):
        return sorted((run.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))

    def prepare(self, run):
        self.write(run.home / ".gemini" / "settings.json", {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "telemetry": {"enabled": True, "target": "local", "outfile": str(run.dir / "gemini-telemetry.json"),
                          "logPrompts": False},
        })
        # install trusts the folder: Gemini CLI reads a project's settings (and runs its hooks)
        # only in a trusted one.
        run.install()

    def argv(self, run, prompt):
        return [self.bin("gemini"), "-p", prompt, "--yolo", "--output-format", "json"]

    def env(self, run, env):
        if run.scope == "user":
            # Headless Gemini CLI refuses an untrusted folder (exit 55); a project install
            # trusts it, a user install is not about folders: trusted for the run, as a user
            # of `gemini -p` in CI does.
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        env["GEMINI_API_KEY"] = "fake"
        env["GOOGLE_GEMINI_BASE_URL"] = run.base_url
        return env

    def latencies(self, run):
        f = run.dir / "gemini-telemetry.json"
        text = f.read_text(errors="replace") if f.exists() else ""
        return [int(ms) for ms in re.findall(r'"Hook call \w+\..*? (?:succeeded|failed) in (\d+)ms"', text)]


class Copilot(Client):
    name = "copilot"
    hooks_files = {"user": ".copilot/hooks/hookhost.json", "project": ".github/hooks/hookhost.json"}

    def __init__(self, suite):
        super().__init__(suite)
        # Copilot's native binary unpacks its 235 MB JavaScript package under ~/.cache on first
        # start; every run has a home of its own, so the package gets one shared place beside the
        # installed CLIs (COPILOT_PKG_CACHE_HOME), unpacked once here rather than by each run.
        self.pkg = suite.clients / "copilot-pkg"
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(suite.work),
               "COPILOT_PKG_CACHE_HOME": str(self.pkg), "COPILOT_SEA_EXTRACT_ONLY": "1"}
        done = subprocess.run([self.bin("copilot"), "--binary-version"], env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"suite: Copilot CLI could not unpack its package into {self.pkg}:\n"
                             f"{done.stdout}{done.stderr}")

    def session_files(self, run):
        return sorted((run.home / ".copilot" / "session-state").glob("*/events.jsonl"))

    def prepare(self, run):
        # install trusts the folder: Copilot runs a repository's hooks in prompt mode only for
        # a trusted one.
        run.install()

    def argv(self, run, prompt):
        return [self.bin("copilot"), "-p", prompt, "--allow-all-tools"]

    def env(self, run, env):
        env["COPILOT_OFFLINE"] = "true"
        env["COPILOT_PROVIDER_BASE_URL"] = f"{run.base_url}/v1"
        env["COPILOT_PROVIDER_API_KEY"] = "fake"
        env["COPILOT_MODEL"] = "fake-model"
        env["COPILOT_PKG_CACHE_HOME"] = str(self.pkg)
        env["COPILOT_AUTO_UPDATE"] = "false"
        return env

    def latencies(self, run):
        out, starts = [], {}
        for events in (run.home / ".copilot" / "session-state").glob("*/events.jsonl"):
            for line in events.read_text().splitlines():
                e = json.loads(line)
                data = e.get("data") or {}
                ts = e.get("timestamp")
                if e.get("type") == "hook.start":
                    starts[data.get("hookInvocationId")] = ts
                elif e.get("type") == "hook.end" and data.get("hookInvocationId") in starts:
                    out.append(iso_ms(ts) - iso_ms(starts[data["hookInvocationId"]]))
        return out


class OpenCode(Client):
    """OpenCode: no hooks of its own but plugins; hookhost's (`hookhost install --runtime
    opencode`) asks hookhost per tool call, tool output and message."""
    name = "opencode"
    hooks_files = {"user": ".config/opencode/plugin/hookhost.js", "project": ".opencode/plugin/hookhost.js"}
    # Not applicable: `coverage` (hookhost reads no OpenCode session files) and `managed-only`
    # (no managed settings).
    skips = ("coverage",)

    def prepare(self, run):
        # The fake model as an OpenAI-compatible provider; the shell and edits allowed, as a
        # user allows them for these commands.
        self.write(run.proj / "opencode.json", {
            "$schema": "https://opencode.ai/config.json",
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": f"{run.base_url}/v1", "apiKey": "fake"},
                                  "models": {"fake-model": {"name": "Fake", "tool_call": True}}}},
            "model": "fake/fake-model", "autoupdate": False, "share": "disabled",
            "permission": {"bash": "allow", "edit": "allow"}})
        # OpenCode installs @opencode-ai/plugin into every config directory it reads when it is
        # not there (~10 s from the registry, each run: every run has a home of its own); a
        # user's second start finds it. Seeded here from the locked copy `run` installed.
        self.seed(run.home / ".config" / "opencode")
        if run.scope == "project":
            self.seed(run.proj / ".opencode")
        run.install()

    def seed(self, config_dir):
        src = self.suite.clients / "opencode-plugin"
        config_dir.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(src / name, config_dir / name)
        # Hard links: the tree is 64 MB; OpenCode finds it complete and changes nothing in it.
        shutil.copytree(src / "node_modules", config_dir / "node_modules", copy_function=os.link, symlinks=True)

    def argv(self, run, prompt):
        # The platform package's binary (what `opencode-ai` runs; package.json says why).
        return [str(self.suite.clients / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"), "run", prompt]

    def env(self, run, env):
        env["OPENCODE_DISABLE_AUTOUPDATE"] = "1"
        # No models.dev catalogue fetched (there is no network; the fake provider is configured).
        env["OPENCODE_DISABLE_MODELS_FETCH"] = "1"
        return env

    def latencies(self, run):
        return []


class QwenCode(Client):
    """Qwen Code (a Gemini CLI fork with Claude Code's hook contract), against the fake model
    as its OpenAI-compatible provider."""
    name = "qwen-code"
    hooks_files = {"user": ".qwen/settings.json", "project": ".qwen/settings.json"}
    project_settings = ".qwen/settings.json"
    # Its PreToolUse `updatedInput` is documented, not applied (0.24.4).
    rewrites_tool_input = False
    # Not applicable: `coverage` (hookhost reads no Qwen Code session files).
    skips = ("coverage",)
    # The settings version Qwen Code 0.24.4 stamps into every settings file it reads (it
    # rewrites a file without one): stamped here first, so a file that changes during a run
    # is a change the agent made.
    SETTINGS_VERSION = 4

    def prepare(self, run):
        # No usage statistics sent (there is no network to send them to); its telemetry to a
        # file: the hook spans it records are its own timing of each hook.
        self.write(run.home / ".qwen" / "settings.json", {
            "$version": self.SETTINGS_VERSION, "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": True, "target": "local", "outfile": str(run.dir / "qwen-telemetry.json"), "logPrompts": False}})
        run.install()
        hooks = run.hooks_path()
        if hooks.exists():
            doc = json.loads(hooks.read_text())
            doc.setdefault("$version", self.SETTINGS_VERSION)
            hooks.write_text(json.dumps(doc, indent=2))

    def telemetry(self, run):
        """The records of its local telemetry file (concatenated JSON objects)."""
        f = run.dir / "qwen-telemetry.json"
        text = f.read_text(errors="replace") if f.exists() else ""
        dec, i, out = json.JSONDecoder(), 0, []
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                return out
            try:
                obj, i = dec.raw_decode(text, i)
            except json.JSONDecodeError:
                return out  # a record cut short at exit
            out.append(obj)

    def blocked_hooks(self, run):
        """Headless Qwen Code shows no reason for a blocked prompt (its non-interactive mode
        drops the `user_prompt_submit_blocked` event): it ends the turn with an empty result
        having called no model. A tool call a hook denied is in its `permission_denials`."""
        out = []
        try:
            events = json.loads(run.stdout) if run.stdout.strip().startswith("[") else []
        except json.JSONDecodeError:
            events = []
        for e in events:
            if e.get("type") != "result":
                continue
            if e.get("result") == "" and e.get("stats", {}).get("models") == {} and not run.model_requests():
                out.append("UserPromptSubmit")
            if e.get("permission_denials"):
                out.append("PreToolUse")
        return out

    def latencies(self, run):
        # Its `qwen-code.hook` spans: one per hook event, with its duration.
        return [r["attributes"]["duration_ms"] for r in self.telemetry(run)
                if r.get("name") == "qwen-code.hook" and "duration_ms" in r.get("attributes", {})]

    def argv(self, run, prompt):
        return [self.bin("qwen"), "-p", prompt, "--yolo", "--auth-type", "openai", "--output-format", "json"]

    def env(self, run, env):
        env["OPENAI_API_KEY"] = "fake"
        env["OPENAI_BASE_URL"] = f"{run.base_url}/v1"
        env["OPENAI_MODEL"] = "fake-model"
        env["QWEN_CODE_SUPPRESS_YOLO_WARNING"] = "1"
        return env


def iso_ms(ts):
    from datetime import datetime
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000


CLIENTS = [ClaudeCode, Codex, GeminiCli, Copilot, OpenCode, QwenCode]


# ---------------------------------------------------------------------------------------------
# The suite.

class Suite:
    def __init__(self, args):
        self.clients = Path(args.clients).resolve()
        self.bin = Path(args.bin).resolve()
        self.work = Path(tempfile.mkdtemp(prefix="hookhost-clients-"))
        self.cache = self.work / "cache"
        self.cache.mkdir()
        self.keep = args.keep
        self.daemons = []
        for tool in ("hookhost", "hookhost-send"):
            if not (self.bin / tool).is_file():
                raise SystemExit(f"suite: {self.bin / tool} does not exist (build it: cargo build -p hookhost-cli)")

    def start_daemons(self):
        """Two `hookhost serve` daemons: one on a unix socket (for hookhost-send), one on loopback
        TCP with a token (for http hooks). Their home is the suite's: the embedded default chain."""
        home = self.work / "daemon-home"
        home.mkdir()
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "HOOKHOST_CACHE_DIR": str(self.cache)}
        self.socket = self.work / "serve.sock"
        self.token = "suite-" + os.urandom(12).hex()
        token_file = self.work / "token"
        token_file.write_text(self.token)
        token_file.chmod(0o600)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.http_port = s.getsockname()[1]
        for listen, extra in ((f"unix:{self.socket}", []),
                              (f"127.0.0.1:{self.http_port}", ["--token-file", str(token_file)])):
            log = open(self.work / f"serve-{len(self.daemons)}.log", "w")
            proc = subprocess.Popen([str(self.bin / "hookhost"), "serve", "--listen", listen, *extra],
                                    cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT)
            self.daemons.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready = self.socket.exists()
            try:
                with socket.create_connection(("127.0.0.1", self.http_port), timeout=1):
                    pass
            except OSError:
                ready = False
            if ready:
                return
            if any(p.poll() is not None for p in self.daemons):
                break
            time.sleep(0.1)
        logs = "".join((self.work / f"serve-{i}.log").read_text() for i in range(len(self.daemons)))
        raise SystemExit(f"suite: hookhost serve did not start:\n{logs}")

    def prewarm(self):
        """INTEGRATIONS.md's "Install and pre-warm": `hookhost check` compiles every plugin of a
        config into the cache, so no event waits for a compile."""
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.work), "HOOKHOST_CACHE_DIR": str(self.cache)}
        configs = [None] + [s.config for s in SCENARIOS if s.config and s.config != BROKEN_CONFIG]
        for i, config in enumerate(configs):
            argv = [str(self.bin / "hookhost"), "check"]
            if config:
                path = self.work / f"prewarm-{i}.toml"
                path.write_text(config.replace("{{RUN_DIR}}", str(self.work)))
                argv += ["--config", str(path)]
            done = subprocess.run(argv, env=env, cwd=self.work, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"suite: {' '.join(argv)} failed:\n{done.stdout}{done.stderr}")

    def stop(self):
        for p in self.daemons:
            p.terminate()
        for p in self.daemons:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        if not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", required=True, help="directory with node_modules/.bin/{claude,codex,gemini,copilot}")
    ap.add_argument("--bin", required=True, help="directory with hookhost and hookhost-send")
    ap.add_argument("--only", help="comma-separated clients to run")
    ap.add_argument("--scenario", help="comma-separated scenarios to run")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the runs' directories")
    ap.add_argument("--latency", type=int, metavar="N",
                    help="instead of the scenarios: Claude Code's `pass` N times under each wiring and under "
                         "no-op baselines (a command that answers nothing, an MCP server that does), and what "
                         "each wiring adds per hook over its baseline, as Claude Code measured it (use --jobs 1)")
    args = ap.parse_args()
    if args.latency:
        return latency(args)

    suite = Suite(args)
    clients = [c(suite) for c in CLIENTS if not args.only or c.name in args.only.split(",")]
    wanted = set(args.scenario.split(",")) if args.scenario else None
    runs = [Run(suite, client, wiring, BY_NAME[name])
            for client in clients for wiring in client.wirings for name in WIRINGS[wiring]
            if (not wanted or name in wanted) and (BY_NAME[name].clients is None or client.name in BY_NAME[name].clients)
            and name not in client.skips]
    # The slowest client's runs first (OpenCode's take many seconds each): the quick ones fill
    # the workers around them instead of leaving them to run alone at the end.
    runs.sort(key=lambda r: r.client.name != "opencode")
    if any(r.scenario.managed_scope for r in runs) and not shutil.which("unshare"):
        # A managed install is root's: the scenario needs a namespace where it is, and is never
        # skipped quietly (run the others with --scenario).
        raise SystemExit("suite: the managed-only scenario needs unshare(1) (util-linux: a user and mount namespace over /etc); "
                         "install it, or leave the scenario out with --scenario")
    started = time.monotonic()
    suite.prewarm()
    suite.start_daemons()
    failed = 0
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run.execute): run for run in runs}
            for fut in concurrent.futures.as_completed(futures):
                run = futures[fut]
                try:
                    problems = fut.result()
                except Exception as e:  # a harness failure is a failure, never a skip
                    problems = [f"the suite could not run it: {e!r}"]
                    run.latencies, run.seconds = [], 0
                results.append((run, problems))
                status = "ok  " if not problems else "FAIL"
                print(f"{status} {run.client.name:12} {run.wiring:8} {run.scenario.name:15} "
                      f"{run.seconds:5.1f}s  exit {getattr(run, 'exit', '?')}  {run.scenario.about}", flush=True)
                for p in problems:
                    failed += 1
                    print(f"       - {p}")
                if problems:
                    print(f"       (run directory {run.dir}; client exit {getattr(run, 'exit', '?')})")
                    tail = (run.stderr or "").strip().splitlines()[-5:]
                    for line in tail:
                        print(f"       | {line[:300]}")
    finally:
        if failed:
            suite.keep = True
        suite.stop()

    print("\nPer-hook latency, as each client measured it (median over the calls; hookhost's debug build):")
    for client in clients:
        for wiring in client.wirings:
            ms = [v for run, _ in results if run.client is client and run.wiring == wiring for v in run.latencies]
            if ms:
                print(f"  {client.name:12} {wiring:8} median {statistics.median(ms):6.1f} ms   "
                      f"p90 {sorted(ms)[int(len(ms) * 0.9) - 1 if len(ms) > 1 else 0]:6.1f} ms   {len(ms)} calls")
            else:
                print(f"  {client.name:12} {wiring:8} (the client reported no hook timings)")
    total = len(results)
    bad = sum(1 for _, p in results if p)
    if not args.only and not args.scenario and total != EXPECTED_RUNS:
        print(f"\nthe suite ran {total} scenario runs, not the {EXPECTED_RUNS} it is meant to: a scenario, wiring or client was dropped")
        bad += 1
    print(f"\n{total - bad}/{total} scenario runs held, in {time.monotonic() - started:.0f} s"
          + (f"; the failed runs are kept under {suite.work}" if bad else ""))
    return 1 if bad else 0


def latency(args):
    """`--latency N`: per-hook time, as Claude Code's debug log shows it, of each wiring against
    a no-op of the same kind."""
    suite = Suite(args)
    client = ClaudeCode(suite)
    order = ["noop-command", "command", "send", "http", "noop-mcp", "mcp", "mcp-http"]
    runs = [Run(suite, client, wiring, BY_NAME["pass"]) for _ in range(args.latency) for wiring in order]
    suite.prewarm()
    suite.start_daemons()
    failed = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for run, problems in zip(runs, pool.map(lambda r: r.execute(), runs)):
                if problems:
                    failed += 1
                    print(f"FAIL {run.wiring}: {problems}")
    finally:
        suite.stop()
    print(f"Per-hook latency in Claude Code ({args.latency} sessions per wiring, 4 hooks each; its own millisecond timestamps):")
    medians = {}
    for wiring in order:
        ms = [v for r in runs if r.wiring == wiring for v in getattr(r, "latencies", [])]
        if not ms:
            print(f"  {wiring:13} (no timings)")
            failed += 1
            continue
        medians[wiring] = statistics.median(ms)
        base = {"command": "noop-command", "send": "noop-command", "http": "noop-command", "mcp": "noop-mcp", "mcp-http": "noop-mcp"}.get(wiring)
        added = f"   +{medians[wiring] - medians[base]:.1f} ms over {base}" if base in medians else ""
        print(f"  {wiring:13} median {medians[wiring]:5.1f} ms   mean {statistics.mean(ms):5.1f} ms   {len(ms)} calls{added}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
