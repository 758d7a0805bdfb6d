//! The one-shot commands a runtime or a person runs per event or session: `run` in a runtime's
//! protocol (`--output`), `replay`, and `wit`.

use crate::loading::load_for_runtime;
use crate::{table, usage, HostArgs};
use anyhow::{Context as _, Result};
use hookhost::protocol::{OnFailure, Protocol};
use hookhost::{HookEvent, Host, Outcome};
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use hookhost::types::{Contract, CONTRACTS, NEWEST};

/// The contract the SDK, its built-ins and `hookhost new`'s templates build against: the newest.
pub(crate) const SDK_CONTRACT: Contract = NEWEST;

/// `hookhost wit DIR`: write `DIR/hooks.wit` (creating DIR), or print it for `-`.
pub(crate) fn write_wit(dir: &Path, version: &str) -> Result<ExitCode> {
    let Some(wit) = CONTRACTS.iter().find(|c| c.version == version).map(|c| c.wit) else {
        let known: Vec<&str> = CONTRACTS.iter().map(|c| c.version).collect();
        return Err(usage(format!("--version: hookhost serves no contract {version:?}; use one of {}", known.join(", "))));
    };
    let package = format!("hookhost:hooks@{version}");
    if dir == Path::new("-") {
        say_raw!("{wit}");
        return Ok(ExitCode::SUCCESS);
    }
    let path = dir.join("hooks.wit");
    let before = std::fs::read_to_string(&path).ok();
    if before.as_deref() == Some(wit) {
        say!("{} is up to date ({package})", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(dir).map_err(|e| usage(format!("cannot create {}: {e}", dir.display())))?;
    std::fs::write(&path, wit).map_err(|e| usage(format!("cannot write {}: {e}", path.display())))?;
    let verb = if before.is_some() { "updated" } else { "wrote" };
    say!("{verb} {} ({package}; build your hook for its world `hook`)", path.display());
    Ok(ExitCode::SUCCESS)
}

/// `run --output P`: answer in the runtime's protocol, whatever arrives. hookhost's own
/// failures are a block before an action (the runtime's non-blocking error elsewhere, or
/// everywhere with `--fail-open`: [`OnFailure`]), so a broken config or an unreadable event
/// never reads as "go ahead" unless the user chose that.
pub(crate) async fn run_for_runtime(args: &HostArgs, path: Option<&Path>, event_name: Option<&str>, protocol: Protocol, on_failure: OnFailure) -> ExitCode {
    // The event first: a failure after it can still answer in the event's own block form.
    let runtime = match protocol {
        Protocol::Runtime(runtime) => Some(runtime),
        Protocol::Json => None,
    };
    // The runtime that sent it is the one it answers: its payload is read as that runtime's
    // (and hooks built against 0.2.0 see it).
    let event = match read_event(path) {
        Err(e) => Err((None, format!("{e:#}"))),
        Ok((bytes, from)) => HookEvent::read(&bytes, runtime, event_name).map_err(|e| (e.event.map(|e| *e), format!("{from}: {}", e.error))),
    };
    let reply = match event {
        Err((salvaged, why)) => hookhost::protocol::failure(protocol, salvaged.as_ref(), &why, on_failure),
        Ok(event) => match load_for_runtime(args).await {
            Err(e) => hookhost::protocol::failure(protocol, Some(&event), &format!("{e:#}"), on_failure),
            Ok(host) => {
                let mut outcome = host.dispatch(&event).await;
                // A user config left out because it does not load: said with every answer,
                // where the user sees it, until it is fixed.
                if let Some(note) = host.user_note() {
                    outcome.effects.push(hookhost::Effect::NotifyUser { text: format!("hookhost: {note}") });
                }
                let reply = hookhost::protocol::render(protocol, &event, &outcome);
                emit(&reply);
                // Background hooks run once the answer is out, and change nothing.
                host.dispatch_background(&event).await;
                print_audit_head(&host, args.verbose);
                return ExitCode::from(reply.code);
            }
        },
    };
    emit(&reply);
    ExitCode::from(reply.code)
}

/// Write a reply: its stdout (flushed), then its notes on stderr.
pub(crate) fn emit(reply: &hookhost::protocol::Reply) {
    use std::io::Write as _;
    if !reply.stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", reply.stdout);
        let _ = out.flush();
    }
    for note in &reply.notes {
        eprintln!("{note}");
    }
}

/// Read the event's bytes from a file or stdin, refusing more than an event can hold; with where
/// they came from, for messages. The bytes are read as an event by [`HookEvent::read`], which
/// takes any bytes.
pub(crate) fn read_event(path: Option<&Path>) -> Result<(Vec<u8>, String)> {
    // JSON escapes can make the text longer than the payload; four times the limit is ample.
    let cap = (hookhost::MAX_EVENT_BYTES * 4) as u64;
    let from = path.map_or_else(|| "stdin".to_string(), |p| p.display().to_string());
    let mut bytes = Vec::new();
    match path {
        Some(p) => std::fs::File::open(p).and_then(|f| f.take(cap + 1).read_to_end(&mut bytes)).map_err(|e| usage(format!("cannot read the event file {from}: {e}")))?,
        None => std::io::stdin().take(cap + 1).read_to_end(&mut bytes).context("reading the event from stdin")?,
    };
    if bytes.len() as u64 > cap {
        return Err(usage(format!("{from}: the event is over {cap} bytes; hookhost runs hooks on payloads of up to {} bytes", hookhost::MAX_EVENT_BYTES)));
    }
    Ok((bytes, from))
}

/// With `-v`, say where the audit chain stands.
pub(crate) fn print_audit_head(host: &Host, verbose: bool) {
    if let (true, Some(log)) = (verbose, host.audit_log()) {
        match log.head() {
            Some((seq, hash)) => eprintln!("hookhost: audit {}: head record {seq}, hash {hash}", log.path().display()),
            None => eprintln!("hookhost: audit {}: no records yet", log.path().display()),
        }
    }
}

pub(crate) async fn replay(host: &Host, session: &Path, json: bool) -> Result<ExitCode> {
    let text = crate::transcripts::read_recording(session, "session file").map_err(usage)?;
    let name = session.display().to_string();
    // A hookhost session, or a Claude Code / Codex transcript (transcripts.rs), read as it runs.
    let (mut events, reader) = crate::transcripts::stream(name.clone(), text, 64);
    let mut here = crate::transcripts::replay_here(&name);
    let mut rows = Vec::new();
    let mut closed = false;
    while let Some((lineno, event)) = events.recv().await {
        if closed {
            continue;
        }
        let event = here(event);
        let outcome: Outcome = host.dispatch(&event).await;
        if json {
            closed = !to_stdout(&format!("{}\n", serde_json::to_string(&outcome)?))?;
        } else {
            rows.push(table::Row::new(lineno, &event, &outcome));
        }
        host.dispatch_background(&event).await;
    }
    let read = reader.join().map_err(|_| usage(format!("{name}: the reader failed")))?.map_err(usage)?;
    for skip in &read.skipped {
        eprintln!("hookhost: {skip}: skipped");
    }
    if closed || (!json && !to_stdout(&table::render(&rows))?) {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(if read.skipped.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Write `text` to stdout. `false` when the reader has gone (`hookhost replay --json | head`):
/// the output ends there, quietly, as with any Unix filter — never a panic.
pub(crate) fn to_stdout(text: &str) -> std::io::Result<bool> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e),
    }
}
