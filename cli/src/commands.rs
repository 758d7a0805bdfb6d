//! The commands `main.rs: run` does not hand to a module of their own: each a function from its
//! parsed flags to an exit code. What they print goes through `say!`: a reader that left
//! (`hookhost check | head -1`) ends the output, never the command with a panic.

use crate::loading::{load_one_shot, load_plugin};
use crate::oneshot::{print_audit_head, read_event, run_for_runtime, SDK_CONTRACT};
use crate::{audit_stats, bench, diff, explain_bundle, load, loadtest, new, read_layers, resolver, scenario, table, transcripts, usage, HostArgs};
use anyhow::{bail, Result};
use hookhost::protocol::{OnFailure, Protocol};
use hookhost::HookEvent;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `hookhost run`: one event through the chain, answered in `output`'s protocol.
pub(crate) async fn run_event(args: &HostArgs, event: Option<&Path>, output: &str, event_name: Option<&str>, on_failure: OnFailure) -> Result<ExitCode> {
    let protocol = Protocol::parse(output).ok_or_else(|| usage(format!("--output: unknown protocol {output:?}; use one of {}", Protocol::names())))?;
    if protocol != Protocol::Json {
        return Ok(run_for_runtime(args, event, event_name, protocol, on_failure).await);
    }
    let host = load_one_shot(args).await?;
    let (bytes, from) = read_event(event)?;
    let event = HookEvent::read(&bytes, None, event_name).map_err(|e| usage(format!("{from}: {e}")))?;
    let outcome = host.dispatch(&event).await;
    // The decision is the answer: a failed write is an error (never say!'s quiet success).
    let mut out = std::io::stdout().lock();
    std::io::Write::write_all(&mut out, format!("{}\n", serde_json::to_string(&outcome)?).as_bytes())?;
    // Background hooks run once the decision is out, and change nothing.
    std::io::Write::flush(&mut out)?;
    drop(out);
    host.dispatch_background(&event).await;
    print_audit_head(&host, args.verbose);
    Ok(ExitCode::SUCCESS)
}

/// `hookhost diff --config OLD --config NEW SESSION...`.
pub(crate) async fn diff(configs: &[PathBuf], grant: Vec<String>, no_project: bool, json: bool, sessions: &[PathBuf]) -> Result<ExitCode> {
    let [old, new] = configs else {
        return Err(usage(format!("give exactly two configs, --config OLD --config NEW (got {})", configs.len())));
    };
    // Each config's hooks audit into a scratch file, not the config's own log: a comparison is
    // not activity.
    let scratch = tempfile::tempdir().map_err(|e| usage(format!("cannot make a scratch directory: {e}")))?;
    let args = |config: &PathBuf, n: usize| HostArgs { config: Some(config.clone()), dialect: None, audit: Some(scratch.path().join(format!("audit-{n}.jsonl"))), grant: grant.clone(), locked: false, no_project, verbose: false };
    let (mut old, mut new) = (load(&args(old, 0)).await?, load(&args(new, 1)).await?);
    old.replaying();
    new.replaying();
    diff::diff(&old, &new, sessions, json).await
}

/// `hookhost replay SESSION`: its records in the config's audit log are marked replayed.
pub(crate) async fn replay(args: &HostArgs, session: &Path, json: bool) -> Result<ExitCode> {
    let mut host = load(args).await?;
    host.replaying();
    let code = crate::oneshot::replay(&host, session, json).await?;
    print_audit_head(&host, args.verbose);
    Ok(code)
}

/// `hookhost config show`: bundles are fetched and verified (not compiled) so their hooks show
/// in the chain.
pub(crate) async fn config_show(host: &HostArgs, json: bool, layers: bool) -> Result<ExitCode> {
    let found = read_layers(host)?;
    let plan = hookhost_bundle::resolve_layers(found, &resolver(host, None)).await.map_err(|e| usage(explain_bundle(&e, Some(host))))?.plan;
    let unapproved = plan.project_note().map(str::to_string);
    if let Some(note) = &unapproved {
        eprintln!("hookhost: {note}");
    }
    if layers {
        if json {
            say!("{}", serde_json::to_string_pretty(&table::layers_json(&plan, unapproved.as_deref()))?);
        } else {
            say_raw!("{}", table::layers_table(&plan, unapproved.as_deref()));
        }
    } else if json {
        say!("{}", serde_json::to_string_pretty(&table::hooks_json(&plan))?);
    } else {
        say_raw!("{}", table::hooks_table(&plan));
    }
    Ok(ExitCode::SUCCESS)
}

/// `hookhost audit stats FILE`.
pub(crate) fn audit_stats(file: &Path, include_replayed: bool) -> Result<ExitCode> {
    let text = transcripts::read_recording(file, "audit log").map_err(usage)?;
    say_raw!("{}", audit_stats::summarise(&file.display().to_string(), &text, include_replayed).map_err(usage)?);
    Ok(ExitCode::SUCCESS)
}

/// `hookhost audit verify FILE [--expect-head H]`.
pub(crate) fn audit_verify(file: &Path, expect_head: Option<&str>) -> Result<ExitCode> {
    let text = transcripts::read_recording(file, "audit log").map_err(usage)?;
    if let Some(h) = expect_head {
        if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
            return Err(usage(format!("--expect-head: {h:?} is not a head hash (64 lowercase hex digits, as `run --audit F -v` prints)")));
        }
    }
    let result = match expect_head {
        Some(h) => hookhost::verify_audit_log_expecting(&text, h),
        None => hookhost::verify_audit_log(&text),
    };
    match result {
        Ok(v) => {
            for (line, r) in &v.recoveries {
                say!("note: line {line}: a writer found a torn last line ({} bytes), moved it to {} and recorded the recovery", r.torn_bytes, r.moved_to);
            }
            say!("ok: {} records, chain intact; head hash {}", v.records, v.head);
            Ok(ExitCode::SUCCESS)
        }
        Err(broken) => {
            eprintln!("hookhost: {}:{}: {}", file.display(), broken.line, broken.problem);
            Ok(ExitCode::from(1))
        }
    }
}

/// `hookhost load-test`.
pub(crate) async fn load_test(args: loadtest::LoadArgs) -> Result<ExitCode> {
    let (report, args) = tokio::task::spawn_blocking(move || loadtest::run(&args).map(|r| (r, args))).await??;
    if args.json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        say_raw!("{}", report.render());
    }
    let failures = report.failures(args.reloads);
    for f in &failures {
        eprintln!("hookhost load-test: {f}");
    }
    Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `hookhost bench guard [--plugin P]`: the guard against its corpus.
pub(crate) async fn bench_guard(plugin: &[PathBuf], json: bool) -> Result<ExitCode> {
    if plugin.len() > 1 {
        bail!("hookhost bench guard takes one --plugin (a guard component to check instead of the built-in one)");
    }
    let files = bench::guard(plugin.first().map(PathBuf::as_path)).await?;
    if json {
        say!("{}", serde_json::to_string_pretty(&files)?);
    } else {
        let name = plugin.first().map_or("builtin:guard-destructive".to_string(), |p| p.display().to_string());
        say_raw!("{}", bench::render_guard(&files, &name));
    }
    Ok(if files.iter().all(|f| f.agree == f.cases) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `hookhost bench`.
pub(crate) async fn bench(seconds: f64, plugin: &[PathBuf], json: bool) -> Result<ExitCode> {
    let report = bench::run(seconds, plugin).await?;
    if json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        say_raw!("{}", bench::render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

/// `hookhost new LANG DIR`.
pub(crate) fn new_project(lang: new::Lang, dir: &Path) -> Result<ExitCode> {
    let files = new::create(lang, dir, SDK_CONTRACT.wit).map_err(|e| usage(format!("{e:#}")))?;
    say!("wrote {} files into {}", files.len(), dir.display());
    say!("next: cd {} && ./build.sh && hookhost test --plugin hook.wasm scenarios.toml", dir.display());
    Ok(ExitCode::SUCCESS)
}

/// `hookhost test SCENARIOS...`: with `--plugin`, that component alone on every event the
/// scenarios name.
pub(crate) async fn test(args: &HostArgs, plugin: Option<&Path>, settings: Option<&str>, json: bool, scenarios: &[PathBuf]) -> Result<ExitCode> {
    let loaded = scenario::load(scenarios).map_err(usage)?;
    let host = match plugin {
        Some(path) => {
            let events: Vec<String> = loaded.iter().map(|s| s.event.name.config_name()).collect();
            load_plugin(args, path, settings, &events).await?
        }
        None => load(args).await?,
    };
    // Scenarios are not a live session: hooks' state starts empty and is thrown away after.
    let mut host = host;
    host.scratch_state();
    let mut checked = Vec::with_capacity(loaded.len());
    for s in &loaded {
        checked.push(scenario::run(&host, s).await);
    }
    let rows: Vec<_> = loaded.iter().zip(checked.iter()).collect();
    if json {
        say!("{}", serde_json::to_string_pretty(&scenario::json_report(&rows))?);
    } else {
        say_raw!("{}", scenario::table(&rows));
    }
    Ok(if checked.iter().all(|c| c.mismatches.is_empty()) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `hookhost check`: load everything, say what loaded, where each hook runs and what holds it.
pub(crate) async fn check(host: &HostArgs, plugin: Option<&Path>, settings: Option<&str>) -> Result<ExitCode> {
    let loaded = match plugin {
        Some(path) => load_plugin(host, path, settings, &["pre_tool_use".to_string()]).await?,
        None => load(host).await?,
    };
    let ids: Vec<&str> = loaded.hook_ids().collect();
    say!("ok: {} hook(s) loaded: {}", ids.len(), ids.join(", "));
    say_raw!("{}", table::check_report(&loaded.report().await, loaded.not_run(), loaded.warnings()));
    say_raw!("{}", table::restrictions(loaded.restrictions()));
    say_raw!("{}", table::layer_sources(loaded.layer_sources()));
    say_raw!("{}", loaded.protection());
    if host.verbose {
        say_raw!("{}", table::guard_rules(&loaded.report().await));
        say_raw!("{}", table::profile(&loaded.profile().await));
    }
    Ok(ExitCode::SUCCESS)
}
