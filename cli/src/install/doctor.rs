//! `hookhost doctor`: is hookhost really in the path of every agent runtime on this machine?
//! For each runtime found (or wired): is each event it should see wired, at which scope; does
//! the wired program exist, run, and report this version; is the runtime's trust step done and
//! current; does a setting of higher precedence switch the hooks off; and a live probe — the
//! exact wired command, fed a destructive tool call in the runtime's own protocol, must answer
//! that runtime's deny. Then hookhost's own layers: do they load; is the managed layer owned by
//! root and writable by no one else. Every failure names its fix; any failure exits 1.

use super::json::Json;
use super::runtimes::{self, Places, Runtime, Scope};
use super::steps::{self, settings};
use super::{drop_in, mcp_server, plugin, yaml_list};
use super::on_path;
use crate::{usage, HostArgs};
use anyhow::Result;
use serde::Serialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

mod probe;

#[derive(clap::Args, Debug)]
pub(crate) struct DoctorArgs {
    /// Check only this runtime (repeatable; default: every runtime found or wired).
    #[arg(long, value_enum)]
    pub runtime: Vec<Runtime>,
    /// The project whose settings count (default: the working directory).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// One JSON object: every check, its outcome and fix.
    #[arg(long)]
    pub json: bool,
    /// Do not run the wired commands (the live probe).
    #[arg(long)]
    pub no_probe: bool,
    /// The system files are under DIR (as `install --scope managed --root DIR` wrote them).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

#[derive(Serialize)]
struct Check {
    /// The runtime, or "hookhost" for hookhost's own layers.
    subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
    check: &'static str,
    ok: bool,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

#[derive(Default)]
struct Report {
    checks: Vec<Check>,
}

impl Report {
    fn add(&mut self, subject: &str, scope: Option<Scope>, check: &'static str, outcome: Result<String, (String, String)>) {
        let scope = scope.map(super::scope_name);
        let (ok, detail, fix) = match outcome {
            Ok(detail) => (true, detail, None),
            Err((detail, fix)) => (false, detail, Some(fix)),
        };
        self.checks.push(Check { subject: subject.into(), scope, check, ok, detail, fix });
    }
}

/// How to wire `runtime` at `scope`.
fn install_fix(runtime: Runtime, scope: Scope) -> String {
    match scope {
        Scope::User => format!("hookhost install --runtime {}", runtime.name()),
        Scope::Project => format!("hookhost install --runtime {} --scope project", runtime.name()),
        Scope::Managed => format!("sudo hookhost install --runtime {} --scope managed", runtime.name()),
    }
}

pub(crate) async fn doctor(args: DoctorArgs) -> Result<ExitCode> {
    let mut places = Places::from_env(args.project.as_deref()).map_err(usage)?;
    places.root = args.root.clone();
    let mut report = Report::default();
    hookhost_layers(&mut report, &places).await;
    let runtimes = if args.runtime.is_empty() { Runtime::all().to_vec() } else { args.runtime.clone() };
    for runtime in runtimes {
        check_runtime(&mut report, runtime, &places, !args.no_probe, !args.runtime.is_empty());
    }
    let failed = report.checks.iter().filter(|c| !c.ok).count();
    if args.json {
        let out = serde_json::json!({ "ok": failed == 0, "failed": failed, "checks": report.checks });
        say!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for c in &report.checks {
            let scope = c.scope.map(|s| format!(" ({s})")).unwrap_or_default();
            say!("{} {}{scope} {}: {}", if c.ok { "ok  " } else { "FAIL" }, c.subject, c.check, c.detail);
            if let Some(fix) = &c.fix {
                say!("       fix: {fix}");
            }
        }
        say!("{}", if failed == 0 { "hookhost doctor: everything checked holds".to_string() } else { format!("hookhost doctor: {failed} check(s) failed") });
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// hookhost's own layers: they load (as `hookhost run` loads them here, the user config
/// included), and the managed one is root's alone.
async fn hookhost_layers(report: &mut Report, places: &Places) {
    let args = HostArgs { config: None, dialect: None, audit: None, grant: vec![], locked: false, no_project: false, verbose: false };
    let here = std::env::current_dir().ok();
    let _ = std::env::set_current_dir(&places.project);
    let loaded = crate::loading::load_one_shot(&args).await;
    if let Some(here) = here {
        let _ = std::env::set_current_dir(here);
    }
    report.add("hookhost", None, "layers load", match loaded {
        Ok(host) => Ok(format!("{} hooks in the chain: {}", host.hook_ids().count(), host.hook_ids().collect::<Vec<_>>().join(", "))),
        Err(e) => Err((format!("{e:#}"), "fix the file the message names (`hookhost check` shows the same); until then hookhost blocks what it cannot decide".into())),
    });
    let (managed, _) = hookhost_types::paths::managed_config();
    if managed.exists() {
        report.add("hookhost", None, "managed layer owned by root", root_owned(&managed));
    }
}

/// Whether `path` (and its directory) belong to root and no one else may write them.
#[cfg(unix)]
fn root_owned(path: &Path) -> Result<String, (String, String)> {
    use std::os::unix::fs::MetadataExt as _;
    for p in [Some(path), path.parent()].into_iter().flatten() {
        let meta = std::fs::metadata(p).map_err(|e| (format!("cannot read {}: {e}", p.display()), "check the path".to_string()))?;
        if meta.uid() != 0 || meta.mode() & 0o022 != 0 {
            return Err((
                format!("{} is owned by uid {} with mode {:o}: someone other than root can change the organisation's policy", p.display(), meta.uid(), meta.mode() & 0o7777),
                format!("sudo chown root {} && sudo chmod go-w {}", p.display(), p.display()),
            ));
        }
    }
    Ok(format!("{} is root's and only root may write it", path.display()))
}

#[cfg(not(unix))]
fn root_owned(path: &Path) -> Result<String, (String, String)> {
    Ok(format!("{} exists (its ACL is not checked on this OS)", path.display()))
}

fn check_runtime(report: &mut Report, runtime: Runtime, places: &Places, probe: bool, named: bool) {
    let name = runtime.name();
    let installed = runtime.found(places);
    let mut wired_somewhere = false;
    let mut wired_managed = false;
    for scope in [Scope::Managed, Scope::User, Scope::Project] {
        let Ok(file) = runtime.hooks_file(scope, places) else { continue };
        if runtime.is_plugin() {
            // hookhost's plugin: the file itself is the wiring.
            let Some(text) = std::fs::read_to_string(&file).ok().filter(|t| plugin::is_ours(t)) else { continue };
            wired_somewhere = true;
            let command = plugin::stamped_command(&text).unwrap_or_default();
            report.add(name, Some(scope), "wired", if command.is_empty() {
                Err((format!("{} is hookhost's plugin but names no command to run", file.display()), install_fix(runtime, scope)))
            } else {
                Ok(format!("hookhost's plugin in {} ({} events)", file.display(), runtime.events().len()))
            });
            check_programs(report, runtime, scope, command.first().cloned().into_iter().collect(), places);
            if probe && !command.is_empty() {
                let words: Vec<String> = command.iter().map(|w| runtimes::shell_word(Path::new(w), cfg!(windows))).collect();
                let mut handler = Json::obj();
                handler.set("command", Json::str(words.join(" ")));
                report.add(name, Some(scope), "live probe", live_probe(runtime, &handler, None, places));
            }
            continue;
        }
        let doc = if runtime.is_yaml_list() {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            match yaml_list::read(&text) {
                Ok(doc) => doc,
                Err(e) => {
                    report.add(name, Some(scope), "hooks file readable", Err((format!("{}: {e}, so {} reads no hooks from it", file.display(), runtime.title()), format!("fix the file, then {}", install_fix(runtime, scope)))));
                    continue;
                }
            }
        } else if runtime.is_drop_in() {
            // hookhost's drop-in: a file the runtime skips (with a warning only) when it cannot
            // read it, which leaves hookhost off.
            let Some(text) = std::fs::read_to_string(&file).ok().filter(|t| drop_in::is_ours(t)) else { continue };
            match drop_in::read(&text) {
                Ok(doc) => doc,
                Err(e) => {
                    wired_somewhere = true;
                    report.add(name, Some(scope), "hooks file readable", Err((format!("{}: {e}, so {} skips it and runs no hook of hookhost's", file.display(), runtime.title()), install_fix(runtime, scope))));
                    continue;
                }
            }
        } else {
            let Some(doc) = settings(&file) else {
                if file.exists() {
                    report.add(name, Some(scope), "hooks file readable", Err((format!("{} is not readable JSON, so {} reads no hooks from it", file.display(), runtime.title()), format!("fix the file, then {}", install_fix(runtime, scope)))));
                }
                continue;
            };
            doc
        };
        let empty = Json::obj();
        let hooks = doc.get("hooks").unwrap_or(&empty);
        let ours: Vec<(&str, Vec<(usize, usize, &Json)>)> = runtime.events().iter().map(|(e, _)| (*e, runtimes::our_handlers(runtime, hooks, e))).collect();
        if ours.iter().all(|(_, h)| h.is_empty()) {
            continue;
        }
        wired_somewhere = true;
        wired_managed |= scope == Scope::Managed;
        if scope == Scope::Managed && places.root.is_none() {
            report.add(name, Some(scope), "managed settings owned by root", root_owned(&file));
        }
        let missing: Vec<&str> = ours.iter().filter(|(_, h)| h.is_empty()).map(|(e, _)| *e).collect();
        report.add(name, Some(scope), "wired", if missing.is_empty() {
            Ok(format!("{} events in {}", ours.len(), file.display()))
        } else {
            Err((format!("{} has no hookhost entry for {}", file.display(), missing.join(", ")), install_fix(runtime, scope)))
        });
        let handlers: Vec<&Json> = ours.iter().flat_map(|(_, h)| h.iter().map(|(_, _, h)| *h)).collect();
        let mut programs: Vec<String> = handlers.iter().filter_map(|h| h.get("command").or_else(|| h.get("bash")).and_then(Json::as_str)).map(runtimes::first_word).collect();
        // MCP tool hooks: the server they call must be listed, and be this hookhost.
        let server = if handlers.iter().any(|h| h.get("type").and_then(Json::as_str) == Some("mcp_tool")) {
            let found = mcp_server_of(runtime, scope, places);
            let what = |entry: &Json| mcp_server::endpoint(entry).map_or("hookhost mcp".to_string(), |url| format!("hookhost serve at {url}"));
            report.add(name, Some(scope), "MCP server listed", found.as_ref().map(|(path, entry)| format!("`{}` ({}) in {}", crate::mcp::SERVER, what(entry), path.display())).map_err(|e| (e.clone(), install_fix_wiring(runtime, scope, "mcp"))));
            found.ok().map(|(_, entry)| entry)
        } else {
            None
        };
        programs.extend(server.as_ref().and_then(mcp_server::command).map(|(program, _)| program));
        check_programs(report, runtime, scope, programs, places);
        check_trust(report, runtime, scope, places, &file, &doc);
        if probe {
            if let Some((_, h)) = ours.iter().find(|(e, h)| *e == runtime.tool_event() && !h.is_empty()) {
                report.add(name, Some(scope), "live probe", live_probe(runtime, h[0].2, server.as_ref(), places));
            }
        }
    }
    if wired_somewhere || installed || named {
        check_switches(report, runtime, places, wired_managed);
    }
    if !wired_somewhere && (installed || named) {
        report.add(name, None, "wired", Err((format!("{} is on this machine but hookhost is wired at no scope: it runs with no hookhost at all", runtime.title()), install_fix(runtime, Scope::User))));
    }
}

/// `hookhost mcp` among the runtime's MCP servers where hooks at `scope` find it (a project's
/// own list, else the user's), with the file it is in; or what is wrong.
fn mcp_server_of(runtime: Runtime, scope: Scope, places: &Places) -> Result<(PathBuf, Json), String> {
    let path = mcp_server::servers_file(runtime, places).ok_or_else(|| format!("{} has no MCP tool hooks", runtime.title()))?;
    let doc = settings(&path).ok_or_else(|| format!("{} is missing or not readable JSON, so {} starts no `{}` server for its MCP tool hooks to call", path.display(), runtime.title(), crate::mcp::SERVER))?;
    let project = (scope == Scope::Project).then_some(places.project.as_path());
    let entry = project.and_then(|p| mcp_server::entry(runtime, &doc, Some(p))).or_else(|| mcp_server::entry(runtime, &doc, None));
    match entry {
        Some(e) if mcp_server::is_ours(&e) => Ok((path, e)),
        Some(_) => Err(format!("the MCP server `{}` in {} is neither `hookhost mcp` nor hookhost serve's MCP endpoint: the hooks would call another program", crate::mcp::SERVER, path.display())),
        None => Err(format!("{} lists no MCP server `{}`: {}'s MCP tool hooks have nothing to call, and block every tool call", path.display(), crate::mcp::SERVER, runtime.title())),
    }
}

/// How to wire `runtime` at `scope` with a given wiring.
fn install_fix_wiring(runtime: Runtime, scope: Scope, wiring: &str) -> String {
    format!("{} --wiring {wiring}", install_fix(runtime, scope))
}

/// The wired programs exist, run, and are this version.
fn check_programs(report: &mut Report, runtime: Runtime, scope: Scope, mut programs: Vec<String>, places: &Places) {
    programs.sort();
    programs.dedup();
    for program in programs {
        let path = PathBuf::from(&program);
        let resolved = if path.is_absolute() { Some(path.clone()) } else { on_path(&program) };
        let outcome = match resolved {
            None => Err((format!("the wired program {program} does not exist (or is not on PATH)"), install_fix(runtime, scope))),
            Some(p) if !p.is_file() => Err((format!("the wired program {} does not exist", p.display()), install_fix(runtime, scope))),
            Some(p) => {
                // hookhost-send has no --version: the hookhost beside it is what it runs.
                let hookhost = if p.file_stem().is_some_and(|s| s == "hookhost-send") { p.with_file_name(format!("hookhost{}", std::env::consts::EXE_SUFFIX)) } else { p.clone() };
                match Command::new(&hookhost).arg("--version").stdin(Stdio::null()).output() {
                    Err(e) => Err((format!("{} does not run: {e}", hookhost.display()), install_fix(runtime, scope))),
                    Ok(out) => {
                        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
                        let mine = env!("CARGO_PKG_VERSION");
                        if !out.status.success() {
                            Err((format!("{} --version failed ({})", hookhost.display(), out.status), install_fix(runtime, scope)))
                        } else if text.split_whitespace().nth(1) != Some(mine) {
                            Err((format!("{} reports {text:?}, not this hookhost's {mine}", hookhost.display()), format!("{} (wires this hookhost)", install_fix(runtime, scope))))
                        } else if scope == Scope::Managed && places.root.is_none() {
                            // What managed settings run must be root's too: a user who can replace
                            // the binary can replace the policy.
                            root_owned(&p).map(|_| format!("{} runs ({text}) and only root may replace it", p.display()))
                        } else {
                            Ok(format!("{} runs ({text})", p.display()))
                        }
                    }
                }
            }
        };
        report.add(runtime.name(), Some(scope), "wired program", outcome);
    }
}

/// The runtime's trust step is done and current.
fn check_trust(report: &mut Report, runtime: Runtime, scope: Scope, places: &Places, file: &Path, doc: &Json) {
    if scope == Scope::Managed {
        // Managed hooks run without a trust step in every runtime.
        return;
    }
    for (check, outcome) in steps::of(runtime).check_trust(runtime, scope == Scope::Project, places, file, doc, &install_fix(runtime, scope)) {
        report.add(runtime.name(), Some(scope), check, outcome);
    }
}

/// Nothing of higher precedence switches the runtime's hooks off. Hooks in the managed
/// settings (`wired_managed`) are out of reach of a user's or a repository's switch.
fn check_switches(report: &mut Report, runtime: Runtime, places: &Places, wired_managed: bool) {
    let off = steps::of(runtime).switched_off(runtime, places, wired_managed);
    report.add(runtime.name(), None, "hooks not switched off", if off.is_empty() {
        Ok("no setting switches hooks off".into())
    } else {
        Err((off.join("; "), format!("remove that setting; against a repository that switches hooks off: {} (docs/ORG.md)", install_fix(runtime, Scope::Managed))))
    });
}

/// Whether `stdout` is `runtime`'s deny.
pub(super) fn is_deny(runtime: Runtime, stdout: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(stdout.trim()).is_ok_and(|v| steps::of(runtime).denies(&v))
}

/// Run the wired handler as the runtime would (its command through the shell, in the project,
/// the event on stdin) and read the answer.
fn live_probe(runtime: Runtime, handler: &Json, server: Option<&Json>, places: &Places) -> Result<String, (String, String)> {
    let fix = "run the command above by hand with the event on stdin; `hookhost check` shows whether the chain loads and what it holds".to_string();
    match handler.get("type").and_then(Json::as_str) {
        Some("http") => return Ok(format!("an http hook to {} (probe it with `hookhost-send --output {}`)", handler.get("url").and_then(Json::as_str).unwrap_or("?"), runtime.protocol())),
        Some("mcp_tool") => return probe::mcp_tool(runtime, handler, server, places),
        _ => {}
    }
    // A handler with a command per shell (Copilot's `bash`) runs that one through sh; a plain
    // `command` runs in the platform's shell.
    let (cmd, per_shell) = match (handler.get("command").and_then(Json::as_str), handler.get("bash").and_then(Json::as_str)) {
        (Some(cmd), _) => (cmd, false),
        (None, Some(cmd)) => (cmd, true),
        (None, None) => return Err(("the handler has no command".into(), fix)),
    };
    let mut shell = if cfg!(windows) && !per_shell {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(cmd);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        c
    };
    let child = shell.current_dir(&places.project).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child = child.map_err(|e| (format!("cannot start `{cmd}`: {e}"), fix.clone()))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(steps::of(runtime).probe(&places.project.display().to_string()).to_string().as_bytes());
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err((format!("`{cmd}` gave no answer within 30 s; {} would wait for it on every tool call", runtime.title()), fix));
            }
        }
    }
    let out = child.wait_with_output().map_err(|e| (e.to_string(), fix.clone()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if is_deny(runtime, &stdout) {
        Ok(format!("`{cmd}` denies `rm -rf /` as {} reads it", runtime.title()))
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err((format!("`{cmd}` did not deny `rm -rf /` ({}; stdout {:?}; stderr {:?})", out.status, stdout.trim(), stderr.trim()), fix))
    }
}
