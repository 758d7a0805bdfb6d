//! Noticing change: what the daemon-wide files hold (the managed and user configs, the
//! daemon's own project, the approvals), and what a project's hook files are now.

use crate::HostArgs;
use std::path::PathBuf;
use std::time::Duration;

/// The project around `dir` (any peer file a policy could ask for counts), if any.
pub(super) fn project_root(dir: &std::path::Path) -> Option<PathBuf> {
    let peers: Vec<hookhost::Runtime> = hookhost::config::policy::project_peer_runtimes().collect();
    hookhost::config::project::find(dir, &peers).map(|p| p.root)
}

/// What a project's hook files are now, cheaply: every entry under `.hookhost/` and the peer
/// files with their size, change time and inode (a changed file changes its stamp).
pub(super) fn project_stamp(root: &std::path::Path) -> String {
    let mut stamp = String::new();
    let mut todo = vec![root.join(".hookhost")];
    for hooks in hookhost::config::policy::project_peer_runtimes().filter_map(|r| r.profile().project_hooks.as_ref()) {
        todo.push(root.join(hooks.file));
        todo.extend(hooks.scripts.map(|dir| root.join(dir)));
    }
    let mut seen = 0;
    while let Some(path) = todo.pop() {
        seen += 1;
        if seen > 4000 {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            stamp.push_str("-;");
            continue;
        };
        stamp.push_str(&format!("{}:{}:{};", path.display(), meta.len(), changed(&meta)));
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                names.sort();
                todo.extend(names);
            }
        }
    }
    stamp
}

/// What the daemon-wide files hold, to notice a change: the managed and user configs, the
/// daemon's own project's files and the project approvals — their contents' digest. (An mtime
/// is not enough: the kernel's coarse clock can give a truncation and the write that follows it
/// the same time, and a daemon that reloaded between them would keep the empty file.)
pub(crate) fn config_stamp(args: &HostArgs) -> Option<String> {
    let mut files = vec![hookhost::types::paths::managed_config().0];
    files.extend(args.config.clone().or_else(hookhost::types::paths::user_config));
    if !args.no_project {
        let peers: Vec<hookhost::Runtime> = hookhost::config::policy::project_peer_runtimes().collect();
        if let Some(p) = std::env::current_dir().ok().and_then(|cwd| hookhost::config::project::find(&cwd, &peers)) {
            files.extend(p.layer_files().into_iter().map(std::path::Path::to_path_buf));
        }
        files.extend(hookhost::config::project::approvals_file());
    }
    let mut stamp = String::new();
    for path in files {
        let Ok(meta) = std::fs::metadata(&path) else {
            stamp.push_str("-;");
            continue;
        };
        // Larger than any config `read` accepts (or not a file): its load fails and says so; the
        // length tells changes apart.
        if meta.len() > 16 << 20 || !meta.is_file() {
            stamp.push_str(&format!("{}:{:?};", meta.len(), meta.modified().ok()));
            continue;
        }
        let digest = std::fs::read(&path).ok().map(|bytes| hookhost::types::ids::sha256_hex(&bytes)).unwrap_or_default();
        stamp.push_str(&digest);
        stamp.push(';');
    }
    Some(stamp)
}

/// A changed config, once it has stopped changing: a writer that truncates and then writes (not
/// an atomic rename) is given time to finish, so a half-written file is not what gets loaded.
pub(super) async fn settled_stamp(args: &HostArgs) -> Option<String> {
    let mut stamp = config_stamp(args);
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let again = config_stamp(args);
        if again == stamp {
            break;
        }
        stamp = again;
    }
    stamp
}

/// When a file last changed, in a form no user can set back where the platform has one (unix:
/// the inode's change time and number), else its modification time.
fn changed(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!("{}.{}:{}", meta.ctime(), meta.ctime_nsec(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
        format!("{}.{}", modified.as_secs(), modified.subsec_nanos())
    }
}
