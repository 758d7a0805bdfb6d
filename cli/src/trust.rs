//! `hookhost trust`: approve a project's hooks (docs/ORG.md, "Approving a project").

use crate::usage;
use anyhow::Result;
use hookhost::config::project::{self, Approval, Approvals};
use hookhost::config::{LayerOptions, Layers};
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn trust(dir: Option<PathBuf>, config: Option<PathBuf>, forget: bool, list: bool) -> Result<ExitCode> {
    let file = project::approvals_file().ok_or_else(|| usage("no state directory is known; set HOME or XDG_STATE_HOME"))?;
    if list {
        let approvals = Approvals::read(&file).map_err(usage)?;
        if approvals.projects.is_empty() {
            println!("no approved projects ({})", file.display());
        }
        for (root, approved) in &approvals.projects {
            println!("{root}  {} file(s)", approved.files.len());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    // The managed and user layers say which peer project files belong to a project.
    let layers = Layers::discover(&LayerOptions { user: config, ..LayerOptions::default() }).map_err(usage)?;
    let peers: Vec<String> = layers.layers.iter().flat_map(|l| l.config.policy.project_peers.iter().cloned()).collect();
    let found = project::find(&dir, &peers).ok_or_else(|| usage(format!("no project found from {} upward: a project has a {} (or a peer project file its policy names)", dir.display(), project::PROJECT_FILE)))?;
    let root = found.root.display().to_string();
    if forget {
        let had = project::forget(&found.root).map_err(usage)?;
        println!("{}", if had { format!("project {root}: approval withdrawn; its hooks no longer run") } else { format!("project {root} was not approved") });
        return Ok(ExitCode::SUCCESS);
    }
    let (files, approval) = project::status(&found).map_err(usage)?;
    match &approval {
        Approval::Approved => println!("project {root}: already approved, unchanged"),
        Approval::New => println!("project {root}: approving {} file(s):", files.len()),
        Approval::Changed(changes) => println!("project {root}: approving the changes since the last approval: {}", changes.join(", ")),
        Approval::Unreadable(why) => return Err(usage(why.clone())),
    }
    for (name, digest) in &files {
        println!("  {name}  {digest}");
    }
    if approval != Approval::Approved {
        let path = project::approve(&found.root, files).map_err(usage)?;
        println!("approved (recorded in {}); any change to these files needs approval again", path.display());
    }
    if let Some(by) = layers.layers.iter().find(|l| l.config.policy.allow_project_hooks == Some(false)) {
        println!("note: {} sets policy.allow_project_hooks = false, so project hooks do not run here", by.config.source.display());
    }
    Ok(ExitCode::SUCCESS)
}
