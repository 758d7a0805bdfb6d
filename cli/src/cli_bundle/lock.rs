//! `hookhost lock` and `hookhost update`: bundle references resolved and pinned, and what each
//! pinned bundle asks for.

use super::*;

pub async fn lock(host: &HostArgs) -> Result<ExitCode> {
    let Some(path) = &host.config else { return Err(usage("hookhost lock needs --config: the lock file sits next to it")) };
    let config = user_layer(host, path)?;
    let lock = hookhost_bundle::resolve(config, &crate::resolver(host, Some(LockMode::Update))).await.map_err(|e| usage(crate::explain_bundle(&e, Some(host))))?.lock;
    let file = hookhost_bundle::resolve::lock_path(path);
    lock.write(&file).map_err(usage)?;
    for (r, d) in &lock.bundles {
        say!("{r} = {d}");
    }
    say!("wrote {} ({} bundle(s))", file.display(), lock.bundles.len());
    Ok(ExitCode::SUCCESS)
}

/// The config file `lock`/`update` work on, as its layer sees it: with the managed layer's
/// trust keys and registry policy applied (the managed layer itself is not merged in).
pub(super) fn user_layer(host: &HostArgs, path: &Path) -> Result<ConfigFile> {
    // The managed file itself (an administrator locking it): it is its own top layer.
    let managed = hookhost_types::paths::managed_config().0;
    if std::fs::canonicalize(path).ok().is_some_and(|p| std::fs::canonicalize(&managed).is_ok_and(|m| m == p)) {
        return ConfigFile::load_as(path, crate::dialect(host)?).map_err(usage);
    }
    let opts = hookhost_config::LayerOptions { user: Some(path.to_path_buf()), format: crate::dialect(host)?, ..Default::default() };
    let layers = hookhost_config::Layers::discover(&opts).map_err(usage)?;
    Ok(layers.layers.into_iter().find(|l| l.kind == hookhost_config::LayerKind::User).expect("a user layer always exists").config)
}

/// One bundle hook as `update` compares it: what it runs on, with what, and how.
pub(super) fn hook_facts(plan: &hookhost::Plan) -> std::collections::BTreeMap<String, Vec<(&'static str, String)>> {
    plan.hooks()
        .iter()
        .filter(|h| h.id.is_bundles())
        .map(|h| {
            let digest = plan.bundle_plugins().get(&h.plugin).map(|p| p.digest.to_string()).unwrap_or_default();
            let facts = vec![
                ("event", h.event.to_string()),
                ("matcher", serde_json::to_string(&h.matcher_spec).unwrap_or_default()),
                ("plugin", format!("{} {digest}", h.plugin)),
                ("settings", h.settings.to_string()),
                ("limits", format!("{:?}", h.limits)),
                ("on_error", h.on_error.as_str().to_string()),
                ("mode", h.mode.as_str().to_string()),
                ("background", if h.background { "background".into() } else { "in the chain".into() }),
            ];
            (h.id.to_string(), facts)
        })
        .collect()
}

/// What each plugin of these resolved bundles asks for and whether the plan grants it: one
/// line per capability (`  acme/sh:hook.wasm requests process:exec — granted`), for `update`
/// and `trust` to show before anything is written.
pub(crate) fn capability_report<'a>(plan: &hookhost::Plan, bundles: impl IntoIterator<Item = &'a hookhost_bundle::resolve::Resolved>) -> Vec<String> {
    let mut out = Vec::new();
    for b in bundles {
        let Ok(reference) = b.reference.parse::<BundleRef>() else { continue };
        for (file, caps) in &b.capabilities {
            let plugin = hookhost::PluginRef::Bundle { bundle: reference.name.clone(), file: file.clone() };
            for cap in caps {
                let held = cap.parse::<hookhost::Capability>().is_ok_and(|c| plan.holds(&plugin, &c));
                let status = if held { "granted by the config".to_string() } else { format!("not granted (to let it: \"{plugin}\" = [\"{cap}\"] under [grants])") };
                out.push(format!("{}:{file} requests {cap} — {status}", reference.name));
            }
        }
    }
    out
}

/// `hookhost update`: re-resolve, compare with what the lock file pins, write it when told.
pub async fn update(host: &HostArgs, yes: bool, dry_run: bool) -> Result<ExitCode> {
    let Some(path) = &host.config else { return Err(usage("hookhost update needs --config: the lock file sits next to it")) };
    let config = user_layer(host, path)?;
    let file = hookhost_bundle::resolve::lock_path(path);
    let old_lock = hookhost_bundle::resolve::Lock::read(&file)?;
    // What the lock file gives today (offline when the cache is warm).
    let before = match &old_lock {
        None => None,
        Some(_) => match hookhost_bundle::resolve(config.clone(), &crate::resolver(host, Some(LockMode::Prefer))).await {
            Ok(r) => Some(r),
            Err(e) => {
                say!("note: the current lock file no longer loads: {}", crate::explain_bundle(&e, Some(host)));
                None
            }
        },
    };
    let after = hookhost_bundle::resolve(config, &crate::resolver(host, Some(LockMode::Update))).await.map_err(|e| usage(crate::explain_bundle(&e, Some(host))))?;
    let mut lines = Vec::new();
    let old_bundles: std::collections::BTreeMap<&str, &hookhost_bundle::resolve::Resolved> = before.iter().flat_map(|b| b.bundles.iter()).map(|b| (b.reference.as_str(), b)).collect();
    for b in &after.bundles {
        match old_bundles.get(b.reference.as_str()) {
            None => match old_lock.as_ref().and_then(|l| l.bundles.get(&b.reference)) {
                Some(d) if *d == b.digest => {}
                Some(d) => lines.push(format!("  ~ {}: {d} → {} ({})", b.reference, b.digest, b.version)),
                None => lines.push(format!("  + {} → {} ({})", b.reference, b.version, b.digest)),
            },
            Some(old) if old.digest != b.digest => lines.push(format!("  ~ {}: {} → {} ({})", b.reference, old.version, b.version, b.digest)),
            Some(_) => {}
        }
    }
    for (reference, digest) in old_lock.iter().flat_map(|l| l.bundles.iter()) {
        if !after.lock.bundles.contains_key(reference) {
            lines.push(format!("  - {reference} ({digest})"));
        }
    }
    let mut report = String::new();
    if !lines.is_empty() {
        report.push_str(&format!("bundles:\n{}\n", lines.join("\n")));
    }
    let (old_hooks, new_hooks) = (before.as_ref().map(|b| hook_facts(&b.plan)).unwrap_or_default(), hook_facts(&after.plan));
    let mut hooks = Vec::new();
    for (id, facts) in &new_hooks {
        match old_hooks.get(id) {
            None => hooks.push(format!("  + {id} (on {})", facts[0].1)),
            Some(old) => {
                let changed: Vec<(&str, &str, &str)> = facts.iter().zip(old).filter(|(a, b)| a.1 != b.1).map(|(a, b)| (a.0, b.1.as_str(), a.1.as_str())).collect();
                if !changed.is_empty() {
                    hooks.push(format!("  ~ {id}: {} changed", changed.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")));
                }
                // A release that stops a hook deciding says so in as many words (issue #48).
                for (what, was, is) in changed {
                    match (what, is) {
                        ("mode", "observe") => hooks.push(format!("    ! {id} switches to observe mode ({was} → {is}): its decisions will be recorded, not applied")),
                        ("background", "background") => hooks.push(format!("    ! {id} moves to the background: it will no longer block or rewrite anything")),
                        ("on_error", _) => hooks.push(format!("    ! {id}: on_error {was} → {is}")),
                        _ => {}
                    }
                }
            }
        }
    }
    for id in old_hooks.keys().filter(|id| !new_hooks.contains_key(*id)) {
        hooks.push(format!("  - {id}"));
    }
    if !hooks.is_empty() {
        report.push_str(&format!("hooks:\n{}\n", hooks.join("\n")));
    }
    // Capabilities: what each plugin asks for and whether the config grants it, new ones
    // marked — a capability an update adds is shown, granted or not, before anything is written.
    let old_caps: std::collections::BTreeSet<String> = before.as_ref().map(|b| capability_report(&b.plan, &b.bundles)).unwrap_or_default().into_iter().collect();
    let new_caps: std::collections::BTreeSet<String> = capability_report(&after.plan, &after.bundles).into_iter().collect();
    let caps: Vec<String> = new_caps.difference(&old_caps).map(|c| format!("  + {c}")).chain(old_caps.difference(&new_caps).map(|c| format!("  - {c}"))).collect();
    if !caps.is_empty() {
        report.push_str(&format!("capabilities:\n{}\n", caps.join("\n")));
    }
    if new_caps.difference(&old_caps).any(|c| c.ends_with("granted by the config")) {
        report.push_str("note: the config already grants a capability this update newly requests; it takes effect once the lock file is written\n");
    }
    let unchanged = old_lock.as_ref() == Some(&after.lock);
    if report.is_empty() && unchanged {
        say!("up to date: {} pins the same {} bundle(s)", file.display(), after.lock.bundles.len());
        return Ok(ExitCode::SUCCESS);
    }
    say_raw!("{report}");
    if dry_run {
        say!("dry run: {} not written", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    if !yes {
        use std::io::{BufRead, IsTerminal, Write};
        if !std::io::stdin().is_terminal() {
            return Err(usage(format!("{} not written: pass --yes to write it (or --dry-run to only look)", file.display())));
        }
        say_raw!("write {}? [y/N] ", file.display());
        std::io::stdout().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            say!("not written");
            return Ok(ExitCode::from(1));
        }
    }
    after.lock.write(&file).map_err(usage)?;
    say!("wrote {} ({} bundle(s))", file.display(), after.lock.bundles.len());
    Ok(ExitCode::SUCCESS)
}
