//! `hookhost uninstall`: every edit the ledger records undone, where the file still holds it.

use super::*;

/// What uninstall makes of a recorded file: its new text (`None`: remove the file).
pub(super) fn undo(rec: &Record, current: &str, latest: bool) -> Result<Option<String>, String> {
    if latest && sha256(current) == rec.after {
        return match &rec.backup {
            None => Ok(None),
            Some(b) => read(b)?.map(Some).ok_or_else(|| format!("the backup {} of {} is gone; nothing was changed", b.display(), rec.path.display())),
        };
    }
    if rec.role == Role::ManagedConfig {
        // A whole file someone changed since: theirs now.
        return Ok(Some(current.to_string()));
    }
    let runtime = Runtime::all().iter().copied().find(|r| r.name() == rec.runtime).ok_or_else(|| format!("{}: recorded for an unknown runtime {:?}", rec.path.display(), rec.runtime))?;
    match rec.role {
        Role::Hooks => match whole_file(runtime) {
            // hookhost's plugin or drop-in, changed since: still hookhost's, so it goes; else it
            // is someone's.
            Some(ours) => Ok((!ours(current)).then(|| current.to_string())),
            None if runtime.is_yaml_list() => yaml_list::unwire(current).map(Some).map_err(|e| format!("{}: {e}; nothing was changed", rec.path.display())),
            None => {
                let old = parse_json(&rec.path, Some(current))?;
                let mut doc = old.clone();
                runtimes::unwire(runtime, &mut doc);
                // The keys install set in the document itself (Claude Code's allowManagedHooksOnly).
                for key in &rec.added {
                    doc.remove(key);
                }
                Ok(Some(rendered(&doc, &old, Some(current))))
            }
        },
        Role::ManagedConfig => Ok(Some(current.to_string())),
        Role::McpServer => {
            let old = parse_json(&rec.path, Some(current))?;
            let mut doc = old.clone();
            mcp_server::remove(runtime, &mut doc, rec.project.as_deref());
            Ok(Some(rendered(&doc, &old, Some(current))))
        }
        role @ (Role::Trust | Role::ManagedOnly) => steps::of(runtime).undo(role, &rec.path, current, &rec.added).map(Some),
    }
}

pub(crate) fn uninstall(args: UninstallArgs) -> Result<ExitCode> {
    let mut places = Places::from_env(args.project.as_deref()).map_err(usage)?;
    places.root = args.root.clone();
    if args.scope == Some(Scope::Managed) && args.root.is_none() && !args.dry_run {
        is_administrator().map_err(usage)?;
    }
    // A user's changes are in their state directory; managed ones beside the managed config,
    // undone only when asked for by name.
    let stores: Vec<Scope> = match args.scope {
        Some(Scope::Managed) => vec![Scope::Managed],
        _ => vec![Scope::User],
    };
    let mut done = 0;
    for store_scope in stores {
        done += uninstall_from(&args, &places, store_scope)?;
    }
    if args.dry_run {
        say!("(dry run: nothing was written)");
    } else if done == 0 {
        say!("nothing to uninstall: install has recorded no change of the runtimes and scopes named");
    }
    Ok(ExitCode::SUCCESS)
}

/// Undo the chosen records of one store; how many files changed.
pub(super) fn uninstall_from(args: &UninstallArgs, places: &Places, store_scope: Scope) -> Result<usize> {
    let store = state(store_scope, places).map_err(usage)?;
    let mut ledger = load_ledger(store_scope, places).map_err(usage)?;
    let chosen = |rec: &Record| {
        let runtime_ok = args.runtime.is_empty() || args.runtime.iter().any(|r| r.name() == rec.runtime);
        let scope_ok = match (args.scope, rec.scope.as_str()) {
            (Some(Scope::User) | None, "user") => true,
            (Some(Scope::Project) | None, "project") => rec.project.as_deref() == Some(places.project.as_path()),
            (Some(Scope::Managed), "managed") => true,
            _ => false,
        };
        runtime_ok && scope_ok
    };
    let stamp = stamp();
    let mut done = 0;
    // Newest first: each change is undone on top of what it was made on.
    for i in (0..ledger.files.len()).rev() {
        let rec = ledger.files[i].clone();
        if !chosen(&rec) {
            continue;
        }
        let latest = !ledger.files[i + 1..].iter().any(|later| later.path == rec.path);
        let Some(current) = read(&rec.path).map_err(usage)? else {
            say!("{}: {} is gone already", rec.runtime, rec.path.display());
            if !args.dry_run {
                ledger.files.remove(i);
                save_ledger(&ledger, store_scope, places).map_err(usage)?;
            }
            continue;
        };
        let new = undo(&rec, &current, latest).map_err(usage)?;
        if args.dry_run {
            match &new {
                None => say!("{}: would remove {} (install made it)", rec.runtime, rec.path.display()),
                Some(text) if *text != current => say_raw!("{}", diff(&rec.path, Some(&current), text)),
                Some(_) => say!("{}: {} holds nothing of install's", rec.runtime, rec.path.display()),
            }
            continue;
        }
        done += 1;
        // What uninstall changes is kept too.
        backup(&rec.path, &current, &stamp, done, &store).map_err(usage)?;
        match &new {
            None => {
                std::fs::remove_file(&rec.path).map_err(|e| usage(format!("cannot remove {}: {e}", rec.path.display())))?;
                for dir in &rec.made_dirs {
                    // Only when empty: whatever else came to live there stays.
                    let _ = std::fs::remove_dir(dir);
                }
                say!("{}: removed {} (install made it)", rec.runtime, rec.path.display());
            }
            Some(text) if *text == current => say!("{}: {} holds nothing of install's", rec.runtime, rec.path.display()),
            Some(text) => {
                write_file(&rec.path, text, None).map_err(usage)?;
                let how = if latest && sha256(&current) == rec.after { "restored as it was before install" } else { "removed hookhost's entries (the file changed since install, so the rest is kept)" };
                say!("{}: {} {how}", rec.runtime, rec.path.display());
            }
        }
        ledger.files.remove(i);
        save_ledger(&ledger, store_scope, places).map_err(usage)?;
    }
    Ok(done)
}
