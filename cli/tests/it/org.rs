//! Org-managed hooks through the `hookhost` binary (docs/ORG.md): the managed, user and project
//! layers merged in order; what a lower layer may not do (mute, replace or weaken a higher
//! layer's hook, set a setting differently, grant what a policy refuses); project hooks that
//! run only once approved; and each bad input refused with its own message.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A scratch machine: its own managed file, user config and state directories, a project tree.
struct Machine {
    dir: tempfile::TempDir,
    managed: Option<PathBuf>,
}

const RM: &str = r#"{"event":"pre_tool_use","tool_name":"bash","tool_input":{"command":"rm -rf /"}}"#;
const LS: &str = r#"{"event":"pre_tool_use","tool_name":"bash","tool_input":{"command":"ls"}}"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim_end().to_string()
}

impl Machine {
    fn new() -> Machine {
        let m = Machine { dir: tempfile::tempdir().unwrap(), managed: None };
        std::fs::create_dir_all(m.path("work")).unwrap();
        m
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// This machine's precompile cache holds the built-ins' code already (see
    /// `hookhost_tests::warm_cache`): for tests that run the bash adapter but do not test
    /// compiling.
    fn warm(self) -> Machine {
        hookhost_tests::warm_cache(&self.path("cache"));
        self
    }

    fn write(&self, rel: &str, body: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        p
    }

    /// Install a managed config (what `$HOOKHOST_MANAGED_CONFIG` names).
    fn managed(&mut self, body: &str) {
        self.managed = Some(self.write("etc/managed.toml", body));
    }

    /// Set up a hookhost command to run in `cwd` on this machine.
    fn setup(&self, cmd: &mut Command, cwd: &str) {
        cmd.current_dir(self.path(cwd))
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("XDG_STATE_HOME", self.path("home/.local/state"))
            .env("HOOKHOST_CACHE_DIR", self.path("cache"))
            .env("HOOKHOST_REGISTRY", self.path("default-registry"))
            .env_remove("HOOKHOST_LOG");
        match &self.managed {
            Some(p) => cmd.env("HOOKHOST_MANAGED_CONFIG", p),
            None => cmd.env_remove("HOOKHOST_MANAGED_CONFIG"),
        };
    }

    /// Run hookhost in `cwd` (relative to the machine) with `stdin`.
    fn run_in(&self, cwd: &str, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
        self.setup(&mut cmd, cwd);
        cmd.args(args);
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    fn ok_in(&self, cwd: &str, args: &[&str]) -> String {
        let out = self.run_in(cwd, args, "");
        assert!(out.status.success(), "hookhost {args:?} failed: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// Run hookhost, require exit code 2 and nothing on stdout; its stderr.
    fn refused(&self, cwd: &str, args: &[&str]) -> String {
        let out = self.run_in(cwd, args, "");
        assert_eq!(out.status.code(), Some(2), "hookhost {args:?}: stdout {} stderr {}", text(&out.stdout), text(&out.stderr));
        assert!(out.stdout.is_empty(), "nothing runs on a refused load, but stdout was {}", text(&out.stdout));
        text(&out.stderr)
    }

    /// `run` on `event` in `cwd`: the outcome JSON and stderr.
    fn dispatch(&self, cwd: &str, args: &[&str], event: &str) -> (serde_json::Value, String) {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        let out = self.run_in(cwd, &all, event);
        assert!(out.status.success(), "hookhost run {args:?}: {}", text(&out.stderr));
        (serde_json::from_slice(&out.stdout).unwrap(), text(&out.stderr))
    }

    fn root(&self) -> String {
        std::fs::canonicalize(self.dir.path()).unwrap().display().to_string()
    }
}

/// A bash-adapter hook that runs `true` as a real process (it needs `process:exec`).
const SH_HOST: &str = "[[hooks]]\nid = \"sh\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { command = \"true\", mode = \"host\" } }\n";

fn hook(id: &str, event: &str, plugin: &str, extra: &str) -> String {
    format!("[[hooks]]\nid = \"{id}\"\nevent = \"{event}\"\nexecutor = {{ plugin = \"{plugin}\" }}\n{extra}\n")
}

fn ids(outcome: &serde_json::Value) -> Vec<String> {
    outcome["hooks"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn layers_merge_in_order_and_show_where_each_hook_and_setting_came_from() {
    let mut m = Machine::new();
    m.managed(&format!("stop_loop_cap = 4\n{}", hook("guard", "pre_tool_use", "builtin:guard-destructive", "on_error = \"block\"")));
    // The user's config is found in $XDG_CONFIG_HOME without --config.
    m.write("home/.config/hookhost/hooks.toml", &hook("redact", "pre_tool_use", "builtin:redact-secrets", ""));
    m.write("work/app/.hookhost/hooks.toml", &hook("guard", "pre_tool_use", "builtin:guard-destructive", ""));
    std::fs::create_dir_all(m.path("work/app/src")).unwrap();
    m.ok_in("work/app/src", &["trust"]);

    let (outcome, _) = m.dispatch("work/app/src", &[], RM);
    assert_eq!(ids(&outcome), ["managed:guard"], "the managed hook blocks first; the chain stops there");
    assert_eq!(outcome["decision"], "block");
    let (outcome, stderr) = m.dispatch("work/app/src", &[], LS);
    assert_eq!(ids(&outcome), ["managed:guard", "user:redact", "project:guard"]);
    assert_eq!(stderr, "", "an approved project is not mentioned");

    let shown: serde_json::Value = serde_json::from_str(&m.ok_in("work/app/src", &["config", "show", "--json"])).unwrap();
    let layers: Vec<(&str, &str)> = shown["hooks"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap(), h["layer"].as_str().unwrap())).collect();
    assert_eq!(layers, [("managed:guard", "managed"), ("user:redact", "user"), ("project:guard", "project")]);
    let table = m.ok_in("work/app/src", &["config", "show", "--layers"]);
    let root = m.root();
    let want = format!(
        "managed layer: {d}/etc/managed.toml\n  setting  stop_loop_cap = 4\n  hook     managed:guard\nuser layer: {d}/home/.config/hookhost/hooks.toml\n  hook     user:redact\nproject layer: {root}/work/app/.hookhost/hooks.toml\n  hook     project:guard",
        d = m.dir.path().display()
    );
    assert_eq!(table, want);
    // --no-project leaves the project out; --config replaces the user file.
    m.write("other.toml", &hook("mine", "session_start", "builtin:redact-secrets", ""));
    let (outcome, _) = m.dispatch("work/app/src", &["--no-project", "--config", "../../../other.toml"], LS);
    assert_eq!(ids(&outcome), ["managed:guard"]);
    let check = m.ok_in("work/app/src", &["check", "--no-project", "--config", "../../../other.toml"]);
    assert!(check.starts_with("ok: 2 hook(s) loaded: managed:guard, user:mine\n"), "{check}");
}

#[test]
fn without_any_layer_the_embedded_default_runs() {
    let m = Machine::new();
    let (outcome, stderr) = m.dispatch("work", &[], RM);
    assert_eq!(outcome["decision"], "block");
    assert_eq!(ids(&outcome), ["user:guard_destructive"]);
    assert_eq!(stderr, "");
}

/// Issue #48: a user file that defines no hooks (empty, or `mode = "observe"` alone) does not
/// switch the built-in protection off; `builtin_hooks = false` does, and `check` says which
/// protection is in force and why.
#[test]
fn a_user_file_without_hooks_keeps_the_built_in_protection_unless_it_says_so() {
    let m = Machine::new();
    let user = m.path("home/.config/hookhost/hooks.toml");
    let user_s = user.display().to_string();
    for body in ["", "# nothing yet\n", "mode = \"observe\"\n", "stop_loop_cap = 3\n"] {
        m.write("home/.config/hookhost/hooks.toml", body);
        let (outcome, _) = m.dispatch("work", &[], RM);
        assert_eq!(outcome["decision"], "block", "{body:?}: {outcome}");
        assert_eq!(ids(&outcome), ["user:guard_destructive"], "{body:?}");
        let check = m.ok_in("work", &["check"]);
        assert!(
            check.contains(&format!("protection: the built-in guard runs before tool calls as user:guard_destructive; {user_s} defines no hooks of its own, so the embedded default's run (builtin_hooks = false turns them off)")),
            "{body:?}: {check}"
        );
    }
    // Said explicitly: nothing runs, and check says so.
    m.write("home/.config/hookhost/hooks.toml", "builtin_hooks = false\n");
    let (outcome, _) = m.dispatch("work", &[], RM);
    assert_eq!(outcome["decision"], "pass", "{outcome}");
    let check = m.ok_in("work", &["check"]);
    assert!(check.contains(&format!("protection: none — no hook runs the built-in guard (builtin:guard-destructive) before tool calls; {user_s} defines no hooks and sets builtin_hooks = false")), "{check}");
    // A file with hooks of its own says what runs; check says the guard is not among them.
    m.write("home/.config/hookhost/hooks.toml", &hook("r", "pre_tool_use", "builtin:redact-secrets", ""));
    let check = m.ok_in("work", &["check"]);
    assert!(check.contains("protection: none — no hook runs the built-in guard (builtin:guard-destructive) before tool calls"), "{check}");
    m.write("home/.config/hookhost/hooks.toml", &hook("g", "pre_tool_use", "builtin:guard-destructive", "mode = \"observe\""));
    let check = m.ok_in("work", &["check"]);
    assert!(check.contains("protection: the built-in guard runs before tool calls as user:g (observe only: it decides nothing)"), "{check}");
}

#[test]
fn a_lower_layer_cannot_mute_replace_or_contradict_the_managed_layer() {
    let mut m = Machine::new();
    m.managed(&format!("stop_loop_cap = 4\n[[capabilities]]\nid = \"org\"\n[[capabilities.hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n"));
    let managed = m.managed.clone().unwrap();
    let d = m.dir.path().display().to_string();
    // Muting a managed hook.
    m.write("user.toml", "disabled_contributions = [\"org:guard\"]\n");
    let err = m.refused("work", &["check", "--config", "../user.toml"]);
    assert_eq!(err, format!("hookhost: error: ../user.toml: disabled_contributions: \"org:guard\" is a hook of the managed layer ({}); a lower layer cannot mute it (ask whoever manages that file)", managed.display()));
    // Defining a hook with a managed hook's id (which would replace or reorder it).
    m.write("user.toml", "[[capabilities]]\nid = \"org\"\n[[capabilities.hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:redact-secrets\" }\non_error = \"allow\"\n");
    let err = m.refused("work", &["run", "--config", "../user.toml"]);
    assert_eq!(err, format!("hookhost: error: ../user.toml: hook \"org:guard\" is also defined by the managed layer ({d}/etc/managed.toml); a lower layer cannot replace or reorder a higher layer's hook: give this one another id, or list the bundle in one layer only"));
    // A setting both write differently.
    m.write("user.toml", "stop_loop_cap = 10\n");
    let err = m.refused("work", &["check", "--config", "../user.toml"]);
    assert_eq!(err, format!("hookhost: error: ../user.toml: stop_loop_cap: the managed layer ({d}/etc/managed.toml) sets it to \"4\", the user layer (../user.toml) to \"10\"; remove it from one of them"));
    // The same value is no conflict.
    m.write("user.toml", "stop_loop_cap = 4\n");
    m.ok_in("work", &["check", "--config", "../user.toml"]);
    // A registry name meaning another place.
    m.managed("[registries.org]\noci = \"127.0.0.1:5000/hooks\"\n");
    m.write("user.toml", "[registries.org]\npath = \"reg\"\n");
    let err = m.refused("work", &["check", "--config", "../user.toml"]);
    assert!(err.contains(&format!("registries.org: the managed layer ({d}/etc/managed.toml) says oci://127.0.0.1:5000/hooks, the user layer (../user.toml) says ../reg; a lower layer cannot redefine a registry: rename it here")), "{err}");
    // Managed-only policy in the user's file.
    m.write("user.toml", "[policy]\nuser_grants = [\"process:exec\"]\n");
    let err = m.refused("work", &["check", "--config", "../user.toml"]);
    assert_eq!(err, "hookhost: error: ../user.toml: policy.user_grants: only the managed config may set this (it limits the user layer); move it to /etc/hookhost/managed.toml, or remove it");
}

#[test]
fn a_managed_file_that_does_not_load_stops_the_host() {
    let mut m = Machine::new();
    m.managed("[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" \n");
    let managed = m.managed.clone().unwrap();
    let err = m.refused("work", &["run"]);
    assert_eq!(err, format!("hookhost: error: {}: line 3, column 50: unclosed inline table, expected `}}`", managed.display()));
    let err = m.refused("work", &["check"]);
    assert!(err.starts_with(&format!("hookhost: error: {}: line 3", managed.display())), "{err}");
    // In a runtime's protocol it is hookhost's own failure: before a tool, the runtime's block
    // naming it; with --fail-open, the non-blocking error — never a pass unless asked.
    let out = m.run_in("work", &["run", "--output", "claude-code"], RM);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(reply["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains(&managed.display().to_string()), "{reply}");
    let out = m.run_in("work", &["run", "--output", "claude-code", "--fail-open"], RM);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(&managed.display().to_string()), "{}", text(&out.stderr));
    // A named managed file that is missing is an error too, not an absent layer.
    std::fs::remove_file(&managed).unwrap();
    let err = m.refused("work", &["check"]);
    assert_eq!(err, format!("hookhost: error: {}: cannot read the managed config named by HOOKHOST_MANAGED_CONFIG (no such file); fix the variable or install the file", managed.display()));
}

#[test]
fn project_hooks_run_only_once_approved_and_again_after_each_change() {
    let m = Machine::new();
    let user = m.write("user.toml", "builtin_hooks = false\n").display().to_string();
    m.write("work/app/.hookhost/hooks.toml", &hook("guard", "pre_tool_use", "builtin:guard-destructive", ""));
    m.write("work/app/.hookhost/notes.txt", "helper file\n");
    std::fs::create_dir_all(m.path("work/app/deep/er")).unwrap();
    let root = format!("{}/work/app", m.root());
    let args = ["--config", user.as_str()];
    // Not approved: it does not run, stderr says which file and the command; the rest runs.
    let (outcome, stderr) = m.dispatch("work/app/deep/er", &args, RM);
    assert_eq!(outcome["decision"], "pass");
    assert_eq!(stderr, format!("hookhost: project {root}: its hooks ({root}/.hookhost/hooks.toml) are not approved, so they do not run; review them and run `hookhost trust {root}`"));
    let check = m.run_in("work/app/deep/er", &["check", "--config", &user], "");
    assert!(check.status.success());
    assert!(text(&check.stderr).contains("are not approved"), "{}", text(&check.stderr));
    // Approved from a subdirectory: every file of .hookhost/ is listed with its digest.
    let out = m.ok_in("work/app/deep", &["trust"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("project {root}: approving 2 file(s):"));
    assert!(lines[1].starts_with("  .hookhost/hooks.toml  sha256:") && lines[2].starts_with("  .hookhost/notes.txt  sha256:"), "{out}");
    assert_eq!(lines[3], "  hook project:guard on pre_tool_use: no grants: sandboxed", "{out}");
    assert!(lines[4].starts_with("approved (recorded in ") && lines[4].contains("home/.local/state/hookhost/approved-projects.json"), "{out}");
    let (outcome, stderr) = m.dispatch("work/app/deep/er", &args, RM);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome)), (Some("block"), vec!["project:guard".to_string()]));
    assert_eq!(stderr, "");
    assert_eq!(m.ok_in("work", &["trust", "--list"]), format!("{root}  2 file(s)"));
    // Any file of it changing withdraws the approval until approved again.
    m.write("work/app/.hookhost/notes.txt", "helper file, edited\n");
    let (outcome, stderr) = m.dispatch("work/app/deep/er", &args, RM);
    assert_eq!(outcome["decision"], "pass");
    assert_eq!(stderr, format!("hookhost: project {root}: its hook files changed since you approved them (.hookhost/notes.txt (changed)), so they do not run; review them and run `hookhost trust {root}` again"));
    m.write("work/app/.hookhost/extra.sh", "echo\n");
    let (_, stderr) = m.dispatch("work/app/deep/er", &args, RM);
    assert!(stderr.contains("(.hookhost/extra.sh (new), .hookhost/notes.txt (changed))"), "{stderr}");
    let out = m.ok_in("work/app", &["trust", "."]);
    assert!(out.starts_with(&format!("project {root}: approving the changes since the last approval: .hookhost/extra.sh (new), .hookhost/notes.txt (changed)")), "{out}");
    assert_eq!(m.dispatch("work/app", &args, RM).0["decision"], "block");
    // A damaged approvals file: the project does not run, the rest does, and it says why.
    let approvals = m.path("home/.local/state/hookhost/approved-projects.json");
    let kept = std::fs::read(&approvals).unwrap();
    std::fs::write(&approvals, "{not json").unwrap();
    let (outcome, stderr) = m.dispatch("work/app", &args, RM);
    assert_eq!(outcome["decision"], "pass");
    assert!(stderr.starts_with(&format!("hookhost: project {root}: its hooks do not run: {}: not a hookhost approvals file (", approvals.display())) && stderr.ends_with("move it away and approve your projects again"), "{stderr}");
    std::fs::write(&approvals, kept).unwrap();
    // The project's file given as the user's config is one layer, not two.
    let (outcome, stderr) = m.dispatch("work/app", &["--config", ".hookhost/hooks.toml"], RM);
    assert_eq!(ids(&outcome), ["user:guard"]);
    assert_eq!(stderr, "");
    // Forgotten: it stops running.
    assert_eq!(m.ok_in("work/app", &["trust", "--forget"]), format!("project {root}: approval withdrawn; its hooks no longer run"));
    assert_eq!(m.dispatch("work/app", &args, RM).0["decision"], "pass");
    // Nothing to approve.
    let err = m.refused("work", &["trust"]);
    assert!(err.contains("no project found from . upward: a project has a .hookhost/hooks.toml"), "{err}");
}

#[test]
fn policies_restrict_lower_layers_and_check_reports_each_restriction() {
    let mut m = Machine::new();
    m.managed("[policy]\nuser_grants = []\nproject_grants = [\"net:http:*\"]\nmax_limits = { timeout_ms = 2000, fuel = 5000000, memory_mib = 32 }\n");
    let d = m.dir.path().display().to_string();
    m.write("user.toml", &hook("redact", "post_tool_use", "builtin:redact-secrets", "timeout_ms = 9000"));
    let out = m.ok_in("work", &["check", "--config", "../user.toml"]);
    let managed = format!("{d}/etc/managed.toml");
    assert!(out.contains(&format!(
        "restricted: 3 thing(s) removed or changed by a layer's policy:\n  hook user:redact: fuel 100000000 lowered to 5000000 (policy.max_limits of {managed})\n  hook user:redact: memory 64 MiB lowered to 32 MiB (policy.max_limits of {managed})\n  hook user:redact: timeout 9000 ms lowered to 2000 ms (policy.max_limits of {managed})"
    )), "{out}");
    // A user grant the managed layer does not allow: refused before anything is compiled.
    m.write("user.toml", SH_HOST);
    let err = m.refused("work", &["check", "--config", "../user.toml", "--grant", "process:exec"]);
    assert!(err.ends_with(&format!("a layer's policy refused the grant: {managed} lets the user layer grant nothing (policy.user_grants)")), "{err}");
    assert!(!m.path("cache").join("modules").exists() || std::fs::read_dir(m.path("cache/modules")).unwrap().next().is_none(), "nothing compiled");
    // A project may grant only what the user's policy allows it, within the managed ceiling.
    m.managed("");
    m.write("user.toml", "builtin_hooks = false\n");
    m.write("work/app/.hookhost/hooks.toml", &format!("[grants]\n\"builtin:bash-adapter\" = [\"process:exec\"]\n{}", SH_HOST));
    m.ok_in("work/app", &["trust"]);
    // The project does not load, so it is left out and says why; the rest loads.
    let left_out = |m: &Machine| {
        let out = m.run_in("work/app", &["check", "--config", "../../user.toml"], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains("its hooks are left out (the managed and user hooks run as if it had none) because it does not load: "), "{err}");
        err
    };
    let err = left_out(&m);
    assert!(err.contains("a layer's policy refused the grant: your user config (../../user.toml) lets projects grant nothing (policy.project_grants); add it there if you trust this project with it"), "{err}");
    m.write("user.toml", "builtin_hooks = false\n[policy]\nproject_grants = [\"process:exec\"]\n");
    // Allowed, approving says what the project's hook holds (issue #48).
    let out = m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(out.contains("\n  hook project:sh on pre_tool_use: holds process:exec (runs host processes as you)"), "{out}");
    m.managed("[policy]\nproject_grants = [\"net:http:*\"]\n");
    let err = left_out(&m);
    assert!(err.contains(&format!("a layer's policy refused the grant: {managed} lets projects grant only net:http:* (policy.project_grants)")), "{err}");
    // A project's own host settings and policy are dropped, and said so.
    m.managed("");
    m.write("work/app/.hookhost/hooks.toml", &format!("audit_log = \"/tmp/elsewhere.jsonl\"\n[policy]\nallow_project_hooks = true\n{}", hook("guard", "pre_tool_use", "builtin:guard-destructive", "")));
    m.ok_in("work/app", &["trust"]);
    let out = m.ok_in("work/app", &["check", "--config", "../../user.toml"]);
    let hooks_file = format!("{}/work/app/.hookhost/hooks.toml", m.root());
    assert!(out.contains(&format!("  project {hooks_file}: [policy] ignored: a project cannot set policy\n  project {hooks_file}: audit_log ignored: a project cannot change host settings (set it in your user config)")), "{out}");
    // Project hooks turned off by the managed layer: not loaded, even approved, and said so.
    m.managed("[policy]\nallow_project_hooks = false\n");
    let out = m.ok_in("work/app", &["config", "show", "--layers", "--config", "../../user.toml"]);
    assert!(out.contains(&format!("  project {}/work/app: not loaded: {managed} sets policy.allow_project_hooks = false", m.root())), "{out}");
    assert!(!out.contains("project layer:"), "{out}");
    let (outcome, _) = m.dispatch("work/app", &["--config", "../../user.toml"], RM);
    assert_eq!(outcome["decision"], "pass");
}

/// `acme/guard@1.0.0` signed by `key` alone, pushed to a directory registry `reg` (relative
/// to the machine).
fn publish(m: &Machine, key: &str, reg: &str) {
    std::fs::create_dir_all(m.path("src")).unwrap();
    std::fs::write(m.path("src/guard.wasm"), hookhost::builtin_plugin("guard-destructive").unwrap()).unwrap();
    m.write(
        "src/bundle.toml",
        "name = \"acme/guard\"\nversion = \"1.0.0\"\n\n[[plugins]]\nfile = \"guard.wasm\"\n\n[[hooks]]\nid = \"no-rm\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"guard.wasm\" }\non_error = \"block\"\n",
    );
    let file = format!("{key}.hhb");
    m.ok_in(".", &["bundle", "pack", "src", "-o", &file]);
    m.ok_in(".", &["key", "generate", "-o", key]);
    m.ok_in(".", &["bundle", "sign", "--key", &format!("{key}.key"), &file]);
    m.ok_in(".", &["registry", "push", &file, reg]);
}

fn trust_key(file: &Path) -> String {
    format!("[[trust.keys]]\npublic_key_file = \"{}\"\nallow = [\"acme/*\"]\n", file.display())
}

#[test]
fn registries_and_signing_keys_as_the_managed_layer_allows() {
    let mut m = Machine::new();
    publish(&m, "org", "orgreg");
    publish(&m, "me", "myreg");
    let d = m.dir.path().display().to_string();
    // The org's key, trusted in the managed layer, verifies a bundle the user lists.
    m.managed(&format!("[registries.org]\npath = \"{d}/orgreg\"\n{}", trust_key(&m.path("org.pub"))));
    m.write("user.toml", "bundles = [\"org/acme/guard@1.0.0\"]\n[registries.org]\npath = \"orgreg\"\n");
    let (outcome, _) = m.dispatch("work", &["--config", "../user.toml"], RM);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome)), (Some("block"), vec!["acme/guard:no-rm".to_string()]));
    // allowed_registries: a bundle from elsewhere is removed, and check says so.
    m.managed(&format!("[policy]\nallowed_registries = [\"org\"]\n[registries.org]\npath = \"{d}/orgreg\"\n{}", trust_key(&m.path("org.pub"))));
    m.write("user.toml", &format!("bundles = [\"mine/acme/guard@1.0.0\"]\n[registries.mine]\npath = \"myreg\"\n{}", trust_key(&m.path("me.pub"))));
    let out = m.ok_in("work", &["check", "--config", "../user.toml"]);
    assert!(out.starts_with("ok: 0 hook(s) loaded"), "{out}");
    assert!(out.contains(&format!("  user ../user.toml: bundles[0] (mine/acme/guard@1.0.0) removed: its registry ../myreg is not in policy.allowed_registries of {d}/etc/managed.toml")), "{out}");
    // managed_keys_only: the user's own key no longer verifies anything.
    m.managed(&format!("[policy]\nmanaged_keys_only = true\n{}", trust_key(&m.path("org.pub"))));
    let err = m.refused("work", &["check", "--config", "../user.toml"]);
    assert!(err.contains("mine/acme/guard@1.0.0") && err.contains("trusted"), "{err}");
    let out = m.run_in("work", &["config", "show", "--layers", "--config", "../user.toml"], "");
    assert_eq!(out.status.code(), Some(2));
}

/// Copy a directory tree (the example, into a scratch machine).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn the_worked_example_in_org_md() {
    let mut m = Machine::new();
    copy_tree(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/org")), &m.path("org"));
    m.managed = Some(m.path("org/managed.toml"));
    let root = format!("{}/org/project", m.root());
    let args = ["--config", "../user/hooks.toml"];
    let out = m.run_in("org/project", &["config", "show", "--layers", "--config", "../user/hooks.toml"], "");
    assert!(out.status.success());
    let shown = text(&out.stdout);
    assert!(shown.contains("  hook     acme:guard\n  hook     acme:redact\nuser layer: ../user/hooks.toml\n"), "{shown}");
    assert!(shown.ends_with(&format!("not loaded: project {root}: its hooks ({root}/.hookhost/hooks.toml) are not approved, so they do not run; review them and run `hookhost trust {root}`")), "{shown}");
    m.ok_in("org/project", &["trust"]);
    let check = m.ok_in("org/project", &["check", "--config", "../user/hooks.toml"]);
    assert!(check.starts_with("ok: 4 hook(s) loaded: acme:guard, acme:redact, user:prompt-guard, project:strict-rm\n"), "{check}");
    let (outcome, _) = m.dispatch("org/project", &args, r#"{"event":"pre_tool_use","tool_name":"bash","tool_input":{"command":"rm -rf build"}}"#);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome).last().map(String::as_str)), (Some("block"), Some("project:strict-rm")));
    assert_eq!(outcome["user_message"], "This repository keeps its files: no rm -rf here.");
    let (outcome, _) = m.dispatch("org/project", &args, RM);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome)), (Some("block"), vec!["acme:guard".to_string()]));
    assert_eq!(outcome["user_message"], "Blocked by Acme's shell policy; ask #platform if you need this.");
    // Every runtime's shell tool, and edit tools reaching hook configuration (issue #48).
    for (tool, input) in [
        ("run_shell_command", serde_json::json!({"command": "rm -rf /"})),
        ("exec_command", serde_json::json!({"cmd": "rm -rf /"})),
        ("write_file", serde_json::json!({"file_path": ".gemini/settings.json", "content": "{}"})),
        ("Edit", serde_json::json!({"file_path": ".claude/settings.json", "old_string": "a", "new_string": "b"})),
        ("apply_patch", serde_json::json!({"command": "*** Begin Patch\n*** Delete File: .hookhost/hooks.toml\n*** End Patch"})),
    ] {
        let event = serde_json::json!({"event": "pre_tool_use", "tool_name": tool, "tool_input": input, "cwd": root}).to_string();
        let (outcome, _) = m.dispatch("org/project", &args, &event);
        assert_eq!((outcome["decision"].as_str(), ids(&outcome).first().map(String::as_str)), (Some("block"), Some("acme:guard")), "{tool}: {outcome}");
    }
}

#[test]
fn key_revocations_count_when_the_key_revokes_itself_or_the_managed_policy_lets_keys_revoke_each_other() {
    let mut m = Machine::new();
    publish(&m, "me", "myreg");
    let id = |out: String| out.split_whitespace().nth(1).unwrap().trim_end_matches(':').to_string();
    let other = id(m.ok_in(".", &["key", "generate", "-o", "other"]));
    // The key that signed the bundle, as `bundle inspect` names it.
    let me = m.ok_in(".", &["bundle", "inspect", "me.hhb"]).lines().find_map(|l| l.trim().strip_prefix("signatures by key ").map(|r| r.split(' ').next().unwrap().to_string())).unwrap();
    m.write("user.toml", &format!("bundles = [\"mine/acme/guard@1.0.0\"]\n[registries.mine]\npath = \"myreg\"\n{}{}", trust_key(&m.path("me.pub")), trust_key(&m.path("other.pub"))));
    let user = m.path("user.toml").display().to_string();
    let args = ["--config", user.as_str()];
    assert_eq!(m.dispatch("work", &args, RM).0["decision"], "block");
    // Another trusted key revoking `me`: not by default, and said so.
    m.ok_in(".", &["bundle", "revoke", "--key", "other.key", "--revoke-key", &me, "--reason", "laptop stolen", "acme/guard", "myreg"]);
    let (outcome, stderr) = m.dispatch("work", &args, RM);
    assert_eq!(outcome["decision"], "block");
    assert!(stderr.contains(&format!("revocation 1 of acme/guard: key {other} revokes another key ({me}), which the managed policy does not allow (policy.revoke_other_keys); ignored")), "{stderr}");
    // The managed layer allows it: the bundle, signed only by the revoked key, is refused.
    m.managed("[policy]\nrevoke_other_keys = true\n");
    let err = m.refused("work", &["run", "--config", &user]);
    assert!(err.contains(&format!("its signature is by a revoked key (key {me}, revoked by key {other} on ")) && err.contains(": laptop stolen); it is refused even when a lock file pins it"), "{err}");
    // Without that policy, a key revoking itself counts.
    m.managed("");
    m.ok_in(".", &["bundle", "revoke", "--key", "me.key", "--revoke-key", &me, "--reason", "rotated", "acme/guard", "myreg"]);
    let err = m.refused("work", &["run", "--config", &user]);
    assert!(err.contains(&format!("(key {me}, revoked by key {me} on ")) && err.contains(": rotated)"), "{err}");
    // A revocation naming a version is refused input without a version, and vice versa.
    let err = m.refused(".", &["bundle", "revoke", "--key", "me.key", "--reason", "x", "acme/guard", "myreg"]);
    assert!(err.ends_with("\"acme/guard\": name the version to revoke, namespace/name@1.2.0 (or pass --revoke-key KEYID)"), "{err}");
    let err = m.refused(".", &["bundle", "revoke", "--key", "me.key", "--reason", " ", "acme/guard@1.0.0", "myreg"]);
    assert!(err.ends_with("--reason: say why; every host that refuses it shows this"), "{err}");
}

#[test]
fn an_administrator_locks_the_managed_layer_and_every_run_honours_it() {
    let mut m = Machine::new();
    publish(&m, "org", "orgreg");
    let d = m.dir.path().display().to_string();
    m.managed(&format!("bundles = [\"org/acme/guard@^1\"]\n[policy]\nmanaged_keys_only = true\n[registries.org]\npath = \"{d}/orgreg\"\n{}", trust_key(&m.path("org.pub"))));
    let managed = m.managed.clone().unwrap().display().to_string();
    let out = m.ok_in(".", &["update", "--config", &managed, "--yes"]);
    assert!(out.starts_with("bundles:\n  + org/acme/guard@^1 → 1.0.0 (sha256:") && out.ends_with(&format!("wrote {d}/etc/managed.lock (1 bundle(s))")), "{out}");
    m.write("user.toml", "builtin_hooks = false\n");
    let (outcome, _) = m.dispatch("work", &["--config", "../user.toml", "--locked"], RM);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome)), (Some("block"), vec!["acme/guard:no-rm".to_string()]));
}

#[test]
fn a_peer_project_file_joins_the_project_layer_when_a_policy_asks_and_is_approved_with_it() {
    let m = Machine::new();
    let hook = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh"}]}]}}"#;
    m.write("work/app/.claude/settings.json", hook);
    m.write("work/app/.claude/hooks/check.sh", "#!/bin/sh\nexit 0\n");
    let root = format!("{}/work/app", m.root());
    // Not asked: a Claude Code project file is not a project layer.
    m.write("user.toml", "builtin_hooks = false\n");
    let out = m.run_in("work/app", &["config", "show", "--layers", "--config", "../../user.toml"], "");
    assert!(out.status.success() && out.stderr.is_empty(), "{}", text(&out.stderr));
    // Asked: it is one, unapproved until `hookhost trust`, which covers its scripts too.
    m.write("user.toml", "[policy]\nproject_peers = [\"claude-code\"]\n");
    let out = m.run_in("work/app", &["config", "show", "--layers", "--config", "../../user.toml"], "");
    assert!(text(&out.stdout).ends_with(&format!("not loaded: project {root}: its hooks ({root}/.claude/settings.json) are not approved, so they do not run; review them and run `hookhost trust {root}`")), "{}", text(&out.stdout));
    let out = m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(out.contains("  .claude/hooks/check.sh  sha256:") && out.contains("  .claude/settings.json  sha256:"), "{out}");
    let shown = m.ok_in("work/app", &["config", "show", "--layers", "--config", "../../user.toml"]);
    assert!(shown.contains(&format!("project layer: {root}/.claude/settings.json\n  hook     project-claude-code:pre_tool_use_0")), "{shown}");
    // Its script changes: approval needed again.
    m.write("work/app/.claude/hooks/check.sh", "#!/bin/sh\nexit 2\n");
    let out = m.run_in("work/app", &["config", "show", "--layers", "--config", "../../user.toml"], "");
    assert!(text(&out.stderr).contains("changed since you approved them (.claude/hooks/check.sh (changed))"), "{}", text(&out.stderr));
}

#[test]
fn serve_reloads_when_a_project_is_approved() {
    let m = Machine::new();
    m.write("user.toml", "builtin_hooks = false\n");
    m.write("work/app/.hookhost/hooks.toml", &hook("guard", "pre_tool_use", "builtin:guard-destructive", ""));
    let user = m.path("user.toml").display().to_string();
    let daemon = common::Daemon::start_with(&["--config", &user, "--listen", "127.0.0.1:0"], |cmd| m.setup(cmd, "work/app"));
    let post = || daemon.request("POST", "/v1/events", &[("content-type", "application/json")], RM);
    let (status, body) = post();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"decision\":\"pass\""), "{body}");
    m.ok_in("work/app", &["trust"]);
    let start = std::time::Instant::now();
    while !daemon.logged("config reloaded") {
        assert!(start.elapsed() < std::time::Duration::from_secs(20), "no reload after the approval");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (_, body) = post();
    assert!(body.contains("\"decision\":\"block\"") && body.contains("project:guard"), "{body}");
}

// Hostile projects (issue #39): an approved project that fails in any way is left out with one
// warning naming its file and the fix, and the managed and user layers run as if it had none.

/// A machine whose managed layer guards `rm -rf /`, and a project `work/app` with `hooks`.
fn guarded_machine(hooks: &str) -> (Machine, String) {
    let mut m = Machine::new().warm();
    m.managed("[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\non_error = \"block\"\n");
    m.write("user.toml", "builtin_hooks = false\n");
    m.write("work/app/.hookhost/hooks.toml", hooks);
    let root = format!("{}/work/app", m.root());
    (m, root)
}

/// `rm -rf /` in `work/app` under `args`: still blocked by the managed guard, as a command hook
/// of Claude Code too; the stderr of the run.
fn managed_guard_holds(m: &Machine, args: &[&str]) -> String {
    let mut all = vec!["--config", "../../user.toml"];
    all.extend_from_slice(args);
    let (outcome, stderr) = m.dispatch("work/app", &all, RM);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome).first().map(String::as_str)), (Some("block"), Some("managed:guard")), "{outcome}\n{stderr}");
    let mut cc = vec!["run", "--output", "claude-code"];
    cc.extend_from_slice(&all);
    let out = m.run_in("work/app", &cc, RM);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("\"permissionDecision\":\"deny\""), "{}", text(&out.stdout));
    stderr
}

#[test]
fn a_failing_project_is_left_out_and_the_managed_guard_still_blocks() {
    // Each: the project's file, what the message names, and whether `trust` approves it — a
    // file that does not validate (on its own, against the layers above it, or naming what
    // cannot be resolved or read) is refused outright; one that validates but whose plugins do
    // not load (a grant it lacks, settings its plugin refuses) is approved, then left out.
    let bad = [
        // Mutes the managed guard.
        ("disabled_contributions = [\"managed:guard\"]\n".to_string(), "a lower layer cannot mute it", false),
        // A registry of the managed layer's name at another place.
        ("[registries.org]\npath = \"elsewhere\"\n".to_string(), "a lower layer cannot redefine a registry", false),
        // A bundle whose registry directory is gone.
        ("bundles = [\"gone/acme/guard@1.0.0\"]\n[registries.gone]\npath = \"no-such-registry\"\n".to_string(), "acme/guard", false),
        // A host process it may not run.
        (SH_HOST.to_string(), "process:exec", true),
        // Out-of-range limits.
        (hook("slow", "pre_tool_use", "builtin:guard-destructive", "timeout_ms = 99999999"), "timeout_ms", false),
        // Settings its plugin refuses.
        ("[[hooks]]\nid = \"odd\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\", settings = { colour = \"red\" } }\n".to_string(), "unknown setting \"colour\"", true),
        // A sandbox mount outside the project (the user's home).
        ("[[hooks]]\nid = \"peek\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { command = \"cat $HOME/.ssh/id_ed25519\", mode = \"sandbox\", project_dir = \"/root\" } }\n".to_string(), "settings.project_dir \"/root\" is outside the project", false),
        // A plugin outside the project.
        (hook("far", "pre_tool_use", "/usr/lib/evil.wasm", ""), "evil.wasm", false),
    ];
    for (body, why, approved) in bad {
        let (mut m, root) = guarded_machine(&body);
        if body.contains("registries.org") {
            let keep = std::fs::read_to_string(m.managed.as_ref().unwrap()).unwrap();
            m.managed(&format!("{keep}[registries.org]\noci = \"127.0.0.1:5000/hooks\"\n"));
        }
        // Either way the managed guard stays up.
        let trusted = m.run_in("work/app", &["trust", "--config", "../../user.toml"], "");
        assert_eq!(trusted.status.success(), approved, "{body}: {}", text(&trusted.stderr));
        let stderr = managed_guard_holds(&m, &[]);
        if approved {
            assert!(stderr.starts_with(&format!("hookhost: project {root}: its hooks are left out (the managed and user hooks run as if it had none) because it does not load: ")), "{body}: {stderr}");
            assert!(stderr.contains(why) && stderr.contains(&format!("{root}/.hookhost/hooks.toml")), "{body}: {stderr}");
            assert!(stderr.contains(&format!("run `hookhost trust {root}` again, or withdraw it with `hookhost trust --forget {root}`")), "{stderr}");
        } else {
            assert!(text(&trusted.stderr).contains(why), "{body}: {}", text(&trusted.stderr));
        }
        // `check` and `config show` load too, and say the same.
        let check = m.run_in("work/app", &["check", "--config", "../../user.toml"], "");
        assert!(check.status.success(), "{body}: {}", text(&check.stderr));
        assert!(text(&check.stdout).contains("managed:guard"), "{}", text(&check.stdout));
    }
}

#[test]
fn approval_covers_the_bytes_that_run_links_and_what_bundles_resolve_to() {
    let m = Machine::new();
    m.write("user.toml", "builtin_hooks = false\n");
    let args = ["--config", "../../user.toml"];
    // A project whose own directory registry holds its bundle, trusted by its own key.
    publish(&m, "proj", "work/app/registry");
    std::fs::create_dir_all(m.path("work/app/.hookhost")).unwrap();
    std::fs::copy(m.path("proj.pub"), m.path("work/app/.hookhost/proj.pub")).unwrap();
    m.write(
        "work/app/.hookhost/hooks.toml",
        &format!("bundles = [\"proj/acme/guard@^1\"]\n[registries.proj]\npath = \"../registry\"\n{}", trust_key(Path::new("proj.pub"))),
    );
    let root = format!("{}/work/app", m.root());
    let out = m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(out.contains("  bundle proj/acme/guard@^1  sha256:"), "{out}");
    let (outcome, stderr) = m.dispatch("work/app", &args, RM);
    assert_eq!((outcome["decision"].as_str(), ids(&outcome)), (Some("block"), vec!["acme/guard:no-rm".to_string()]), "{stderr}");
    // A new version published into the project's own registry: what runs would change, so the
    // project is left out until approved again.
    // It also asks for a capability now: approving shows it, and that nothing grants it.
    m.write("src/bundle.toml", &std::fs::read_to_string(m.path("src/bundle.toml")).unwrap().replace("1.0.0", "1.1.0").replace("file = \"guard.wasm\"\n", "file = \"guard.wasm\"\ncapabilities = [\"net:http:127.0.0.1:9\"]\n"));
    m.ok_in(".", &["bundle", "pack", "src", "-o", "next.hhb"]);
    m.ok_in(".", &["bundle", "sign", "--key", "proj.key", "next.hhb"]);
    m.ok_in(".", &["registry", "push", "next.hhb", "work/app/registry"]);
    let (outcome, stderr) = m.dispatch("work/app", &args, RM);
    assert_eq!(outcome["decision"], "pass", "{outcome}");
    assert!(stderr.contains(&format!("project {root}: its hooks are left out")) && stderr.contains("bundle proj/acme/guard@^1 now resolves to sha256:") && stderr.contains("not the sha256:"), "{stderr}");
    let out = m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(out.contains("approving what its bundles resolve to now"), "{out}");
    assert!(out.contains("  acme/guard:guard.wasm requests net:http:127.0.0.1:9 — not granted (to let it: \"acme/guard:guard.wasm\" = [\"net:http:127.0.0.1:9\"] under [grants])"), "{out}");
    assert_eq!(m.dispatch("work/app", &args, RM).0["decision"], "block");
    // A symbolic link to a directory inside the project is followed and hashed.
    m.write("work/app/scripts/check.sh", "exit 0\n");
    std::os::unix::fs::symlink("../scripts", m.path("work/app/.hookhost/scripts")).unwrap();
    let out = m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(out.contains(".hookhost/scripts/check.sh (new)") || out.contains("scripts/check.sh  sha256:"), "{out}");
    m.write("work/app/scripts/check.sh", "rm -rf ~\n");
    let (_, stderr) = m.dispatch("work/app", &args, RM);
    assert!(stderr.contains("changed since you approved them (scripts/check.sh (changed))"), "{stderr}");
    // A link out of the project (here to the kernel's page map, which is huge): not read, the
    // project does not run, and it says why.
    std::fs::remove_file(m.path("work/app/.hookhost/scripts")).unwrap();
    std::os::unix::fs::symlink("/proc/self/pagemap", m.path("work/app/.hookhost/map")).unwrap();
    let (outcome, stderr) = m.dispatch("work/app", &args, RM);
    assert_eq!(outcome["decision"], "pass");
    assert!(stderr.contains(&format!("{root}/.hookhost/map leads outside the project (to /proc/")), "{stderr}");
    let err = m.refused("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(err.contains("leads outside the project"), "{err}");
    std::fs::remove_file(m.path("work/app/.hookhost/map")).unwrap();
    // A FIFO among the hook files is not waited on.
    assert!(std::process::Command::new("mkfifo").arg(m.path("work/app/.hookhost/pipe")).status().unwrap().success());
    let (_, stderr) = m.dispatch("work/app", &args, RM);
    assert!(stderr.contains(".hookhost/pipe is not a regular file"), "{stderr}");
}

#[test]
fn what_loads_is_what_was_hashed_even_while_the_files_change() {
    let m = Machine::new();
    m.write("user.toml", "builtin_hooks = false\n");
    let approved = hook("approved", "pre_tool_use", "builtin:guard-destructive", "");
    let other = hook("unapproved", "pre_tool_use", "builtin:guard-destructive", "");
    m.write("work/app/.hookhost/hooks.toml", &approved);
    m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    // Swap the config between the approved text and another, as fast as renames go, while
    // runs load it: no run may load the unapproved one.
    let calm = approved.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (dir, flag) = (m.path("work/app/.hookhost"), stop.clone());
    let swapper = std::thread::spawn(move || {
        let mut n = 0u64;
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            let tmp = dir.join("next.tmp");
            std::fs::write(&tmp, if n % 2 == 0 { &other } else { &approved }).unwrap();
            std::fs::rename(&tmp, dir.join("hooks.toml")).unwrap();
            n += 1;
        }
    });
    let mut ran = 0;
    for _ in 0..30 {
        let (outcome, _) = m.dispatch("work/app", &["--config", "../../user.toml"], RM);
        let hooks = ids(&outcome);
        assert!(!hooks.contains(&"project:unapproved".to_string()), "unapproved code ran: {outcome}");
        ran += hooks.contains(&"project:approved".to_string()) as usize;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!("the approved project ran in {ran} of 30 racing runs; the unapproved one in none");
    // Not a test that passes because no project loads at all: the approved text loaded in some
    // racing runs (each reads one of the two texts, about half the time the approved one; none
    // of 30 is 2^-30), and loads in a calm run once it is back.
    assert!(ran >= 1, "the approved project ran in none of 30 racing runs");
    m.write("work/app/.hookhost/hooks.toml", &calm);
    let (outcome, _) = m.dispatch("work/app", &["--config", "../../user.toml"], RM);
    assert!(ids(&outcome).contains(&"project:approved".to_string()), "the approved project does not run once the race is over: {outcome}");
}

#[test]
fn a_project_another_user_can_write_is_ignored_like_git_safe_directory() {
    let m = Machine::new();
    m.write("user.toml", "builtin_hooks = false\n");
    m.write("work/app/.hookhost/hooks.toml", &hook("guard", "pre_tool_use", "builtin:guard-destructive", ""));
    m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    let args = ["--config", "../../user.toml"];
    assert_eq!(m.dispatch("work/app", &args, RM).0["decision"], "block");
    use std::os::unix::fs::PermissionsExt;
    let dir = m.path("work/app/.hookhost");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (outcome, stderr) = m.dispatch("work/app", &args, RM);
    assert_eq!(outcome["decision"], "pass");
    assert!(stderr.contains(&format!("{} is writable by every user", dir.display())) && stderr.contains("safe.directory"), "{stderr}");
    let err = m.refused("work/app", &["trust", "--config", "../../user.toml"]);
    assert!(err.contains("is writable by every user"), "{err}");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Another user's `.hookhost/` (a shared directory such as /tmp): only root can make one here.
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
        let (outcome, stderr) = m.dispatch("work/app", &args, RM);
        assert_eq!(outcome["decision"], "pass");
        assert!(stderr.contains(&format!("{} belongs to another user (uid 65534, you are uid 0)", dir.display())), "{stderr}");
    } else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI runs as root, which this test needs to make another user's directory");
    }
}

#[test]
fn a_fifo_in_the_mounted_project_does_not_hold_the_answer() {
    let m = Machine::new().warm();
    m.write("user.toml", "builtin_hooks = false\n");
    let root = format!("{}/work/app", m.root());
    m.write(
        "work/app/.hookhost/hooks.toml",
        &format!("[[hooks]]\nid = \"reader\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ command = \"cat {root}/pipe\", mode = \"sandbox\", project_dir = \"{root}\" }} }}\ntimeout_ms = 300\non_error = \"allow\"\n"),
    );
    assert!(std::process::Command::new("mkfifo").arg(m.path("work/app/pipe")).status().unwrap().success());
    m.ok_in("work/app", &["trust", "--config", "../../user.toml"]);
    // The hook times out on the FIFO; the answer comes, and the process ends with it (before,
    // it waited for the blocked read for as long as the FIFO had no writer).
    let started = std::time::Instant::now();
    let mut child = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
    m.setup(&mut child, "work/app");
    let mut child = child.args(["run", "--config", "../../user.toml", "--event", "/dev/stdin"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), LS.as_bytes()).unwrap();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "hookhost run did not exit after its answer");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["hooks"][0]["id"], "project:reader", "{outcome}");
    assert!(outcome["hooks"][0]["error"].as_str().is_some_and(|e| e.contains("time")), "{outcome}");
}

/// A layer decides the mode of its own hooks only: a user file in `observe` mode observes its
/// own hooks, and the managed guard still enforces; the managed file's `observe` is its own.
#[test]
fn observe_mode_is_each_layers_own() {
    let mut m = Machine::new();
    m.managed(&hook("guard", "pre_tool_use", "builtin:guard-destructive", "on_error = \"block\""));
    m.write("user.toml", "mode = \"observe\"\n[[hooks]]\nid = \"strict\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\", settings = { strict_rm = true } }\n");
    std::fs::create_dir_all(m.path("work/app")).unwrap();
    let (outcome, stderr) = m.dispatch("work/app", &["--config", "../../user.toml"], RM);
    assert_eq!(outcome["decision"], "block", "{outcome}\n{stderr}");
    let modes: Vec<(String, bool)> = outcome["hooks"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["observed"].as_bool().unwrap_or(false))).collect();
    assert_eq!(modes.first(), Some(&("managed:guard".to_string(), false)), "the managed guard enforces: {outcome}");
    // The managed file observing its own guard: the user's hooks decide.
    m.managed(&format!("mode = \"observe\"\n{}", hook("guard", "pre_tool_use", "builtin:guard-destructive", "on_error = \"block\"")));
    m.write("user.toml", "builtin_hooks = false\n");
    let (outcome, _) = m.dispatch("work/app", &["--config", "../../user.toml"], RM);
    assert_eq!((outcome["decision"].as_str(), outcome["hooks"][0]["observed"].as_bool()), (Some("pass"), Some(true)), "{outcome}");
}

/// A user config that does not load (a typo, a mute of a managed hook, a plugin that is not
/// there): answering a runtime, it is left out with a notice the user sees on every answer, and
/// the managed guard keeps deciding — a broken user file never switches it off. `check` and
/// `run --output json` still refuse it, naming the problem.
#[test]
fn a_user_config_that_does_not_load_is_left_out_and_the_managed_guard_still_decides() {
    let bad = [
        ("[[hooks]\nthis is not toml\n", "line 1"),
        ("disabled_contributions = [\"managed:guard\"]\n", "a lower layer cannot mute it"),
        ("[[hooks]]\nid = \"x\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"missing.wasm\" }\n", "missing.wasm"),
    ];
    for (body, why) in bad {
        let (m, _root) = guarded_machine("# none\n");
        m.write("user.toml", body);
        let out = m.run_in("work", &["run", "--output", "claude-code", "--config", "../user.toml"], RM);
        assert_eq!(out.status.code(), Some(0), "{why}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{why}: the managed guard still blocks: {v}");
        let notice = v["systemMessage"].as_str().unwrap_or_default();
        assert!(notice.starts_with("hookhost: your config ../user.toml is left out because it does not load (") && notice.contains(why), "{why}: {v}");
        assert!(text(&out.stderr).contains("is left out because it does not load"), "{why}: {}", text(&out.stderr));
        // A harmless command runs, with the notice.
        let out = m.run_in("work", &["run", "--output", "claude-code", "--config", "../user.toml"], LS);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v.get("hookSpecificOutput").is_none() && v["systemMessage"].as_str().is_some(), "{why}: {v}");
        // The tools a person runs still say what is wrong.
        assert!(m.refused("work", &["check", "--config", "../user.toml"]).contains(why), "{why}");
        assert!(m.refused("work", &["run", "--config", "../user.toml"]).contains(why), "{why}");
    }
    // `check` says where each layer came from.
    let (m, _root) = guarded_machine("# none\n");
    let check = m.ok_in("work", &["check", "--config", "../user.toml"]);
    let managed = m.managed.clone().unwrap();
    assert!(check.contains(&format!("layer managed: {} (named by HOOKHOST_MANAGED_CONFIG; an installed /etc/hookhost/managed.toml would win)\nlayer user: ../user.toml", managed.display())), "{check}");
    // Without a managed layer, the embedded default stands in: the built-in guard decides.
    let m = Machine::new().warm();
    m.write("user.toml", "[[hooks]\n");
    let out = m.run_in("work", &["run", "--output", "gemini-cli", "--config", "../user.toml"], RM);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["systemMessage"].as_str().unwrap().contains("the managed and built-in hooks decide in its place"), "{v}");
}

/// A relative `XDG_CONFIG_HOME` is not used (the XDG base-directory rules): the user's file is
/// where `HOME` says, whatever a repository's environment sets.
#[test]
fn relative_xdg_directories_are_ignored() {
    let m = Machine::new().warm();
    // The user's real file (broken, so that reading it shows); a relative XDG_CONFIG_HOME
    // pointing at a harmless config in the working directory must not replace it.
    m.write("home/.config/hookhost/hooks.toml", "[[hooks]\n");
    m.write("work/rel/hookhost/hooks.toml", "# nothing\n");
    let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
    m.setup(&mut cmd, "work");
    let out = cmd.env("XDG_CONFIG_HOME", "rel").args(["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(err.contains("XDG_CONFIG_HOME=rel is not an absolute path, so it is ignored"), "{err}");
    assert!(err.contains(&format!("{}: line 1", m.path("home/.config/hookhost/hooks.toml").display())), "{err}");
}
