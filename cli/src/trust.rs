//! `hookhost trust`: approve a project's hooks (docs/ORG.md, "Approving a project").

use crate::usage;
use anyhow::Result;
use hookhost::config::project::{self, Approval, Approvals};
use hookhost::config::{LayerKind, LayerOptions, Layers};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) async fn trust(dir: Option<PathBuf>, config: Option<PathBuf>, forget: bool, list: bool) -> Result<ExitCode> {
    let file = project::approvals_file().ok_or_else(|| usage("no state directory is known; set HOME or XDG_STATE_HOME"))?;
    if list {
        let approvals = Approvals::read(&file).map_err(usage)?;
        if approvals.projects.is_empty() {
            say!("no approved projects ({})", file.display());
        }
        for (root, approved) in &approvals.projects {
            say!("{root}  {} file(s)", approved.files.len());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    // The managed and user layers say which peer project files belong to a project.
    let base = Layers::discover(&LayerOptions { user: config.clone(), ..LayerOptions::default() }).map_err(usage)?;
    let peers: Vec<hookhost::Runtime> = base.layers.iter().flat_map(|l| l.config.policy.project_peers.iter().copied()).collect();
    let found = project::find(&dir, &peers).ok_or_else(|| usage(format!("no project found from {} upward: a project has a {} (or a peer project file its policy names)", dir.display(), project::PROJECT_FILE)))?;
    let root = found.root.display().to_string();
    if forget {
        let had = project::forget(&found.root).map_err(usage)?;
        say!("{}", if had { format!("project {root}: approval withdrawn; its hooks no longer run") } else { format!("project {root} was not approved") });
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(why) = &found.ignored {
        return Err(usage(format!("project {root}: not approved: {why}; hookhost trusts only project hook files you own and only you can write (as git does with safe.directory)")));
    }
    let (snapshot, approval, approved_bundles) = project::status(&found).map_err(usage)?;
    if let Approval::Unreadable(why) | Approval::Failed(why) = &approval {
        return Err(usage(why.clone()));
    }
    // What the project's bundles resolve to is part of what is approved: load the layers with
    // this project in, as it is now, and keep its bundles' digests.
    let layers = Layers::discover(&LayerOptions { user: config, project_from: Some(found.root.clone()), approving: true, ..LayerOptions::default() }).map_err(usage)?;
    if let Some(why) = layers.project.as_ref().and_then(|p| match &p.approval {
        Approval::Failed(why) => Some(why.clone()),
        _ => None,
    }) {
        return Err(usage(format!("project {root}: not approved, because it does not load: {why}")));
    }
    let resolver = hookhost_bundle::Resolver { progress: crate::terminal_progress(), ..hookhost_bundle::Resolver::default() };
    let resolution = hookhost_bundle::resolve_layers(layers, &resolver).await.map_err(|e| usage(crate::explain_bundle(&e, None)))?;
    if !resolution.plan.layers().iter().any(|l| l.kind == LayerKind::Project) {
        let why = resolution.plan.project_note().unwrap_or_default().to_string();
        return Err(usage(format!("project {root}: not approved, because it does not load: {why}")));
    }
    let bundles: BTreeMap<String, String> = resolution.bundles.iter().filter(|b| b.layer == LayerKind::Project).map(|b| (b.reference.clone(), b.digest.to_string())).collect();
    let files = snapshot.digests();
    let unchanged = approval == Approval::Approved && bundles == approved_bundles;
    match &approval {
        _ if unchanged => say!("project {root}: already approved, unchanged"),
        Approval::New => say!("project {root}: approving {} file(s):", files.len()),
        Approval::Changed(changes) => say!("project {root}: approving the changes since the last approval: {}", changes.join(", ")),
        _ => say!("project {root}: approving what its bundles resolve to now:"),
    }
    for (name, digest) in &files {
        say!("  {name}  {digest}");
    }
    for (reference, digest) in &bundles {
        say!("  bundle {reference}  {digest}");
    }
    // What the project's bundles ask for, and what the layers grant them.
    for line in crate::cli_bundle::capability_report(&resolution.plan, resolution.bundles.iter().filter(|b| b.layer == LayerKind::Project)) {
        say!("  {line}");
    }
    // What each of the project's hooks may do beyond the sandbox once approved: one that runs
    // host processes runs them as you (issue #48).
    for line in project_grants(&resolution.plan) {
        say!("  {line}");
    }
    if !unchanged {
        let path = project::approve(&found.root, files, bundles).map_err(usage)?;
        say!("approved (recorded in {}); any change to these files, or to what its bundles resolve to, needs approval again", path.display());
    }
    if let Some(by) = base.layers.iter().find(|l| l.config.policy.allow_project_hooks == Some(false)) {
        say!("note: {} sets policy.allow_project_hooks = false, so project hooks do not run here", by.config.source.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Each project hook and what it holds beyond the sandbox (`process:exec`, `net:http:` hosts),
/// or that it holds nothing.
fn project_grants(plan: &hookhost::Plan) -> Vec<String> {
    use hookhost::Capability;
    plan.hooks()
        .iter()
        .filter(|h| h.id.starts_with("project:"))
        .map(|h| {
            let mut held = Vec::new();
            if h.grants.contains(&Capability::ProcessExec) || plan.holds(&h.plugin, &Capability::ProcessExec) {
                held.push("process:exec (runs host processes as you)".to_string());
            }
            let hosts = plan.net_hosts(&h.plugin).into_iter().map(Capability::NetHttp).chain(h.grants.iter().filter(|c| matches!(c, Capability::NetHttp(_))).cloned());
            held.extend(hosts.map(|c| c.to_string()).collect::<std::collections::BTreeSet<_>>());
            let what = if held.is_empty() { "no grants: sandboxed".to_string() } else { format!("holds {}", held.join(", ")) };
            format!("hook {} on {}: {what}", h.id, h.event)
        })
        .collect()
}
