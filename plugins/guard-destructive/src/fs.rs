//! The `core` pack's filesystem and device rules: recursive deletion (targets resolved first),
//! `find` deleting, `shred`, `mkfs`, `dd` onto a device, recursive `chmod`/`chown` of a root.
//!
//! A recursive `rm` is judged by where its targets are, after resolving them as the shell and
//! the file system would (`~`, `$HOME`, `$TMPDIR`, `..` folded against the event's `cwd`, a
//! trailing glob read as the directory it empties): a temporary directory or a build output /
//! cache is fine; a directory of the project is asked about; the project itself, a root, a home
//! or a system directory, a `.git` directory, or anything outside the project is blocked; a
//! target known only when the command runs (`$DIR`, `$(...)`) is asked about.
//!
//! Read from coreutils' rm(1), shred(1), chmod(1), chown(1), dd(1) and findutils' find(1).

use crate::paths::components;
use crate::{Finding, Verdict};
use hookhost_shell_parse as shell;

rules! {
    RM_ROOT = "fs.rm-root", Block,
        "recursive rm of /, a top-level or system directory, a home directory, or the whole project (`.`, `*`)",
        "delete the specific paths you mean, by name";
    RM_GIT = "fs.rm-git-dir", Block,
        "recursive rm of a `.git` directory deletes the repository's whole history",
        "`git worktree remove` or `git submodule deinit`, or move the directory aside";
    RM_OUTSIDE = "fs.rm-outside-project", Block,
        "recursive rm outside the project and the temporary directories",
        "ask the user to delete it, or move it into a temporary directory";
    RM_PROJECT = "fs.rm-in-project", Ask,
        "recursive rm of a directory of the project (build outputs and caches aside)",
        "commit or `git stash -u` first, so the files can come back";
    RM_UNKNOWN = "fs.rm-unknown-target", Ask,
        "recursive rm of a path known only when the command runs (`$DIR`, `$(...)`)",
        "spell the path out";
    RM_NO_PRESERVE = "fs.rm-no-preserve-root", Block,
        "rm --no-preserve-root",
        "nothing: there is no safe use of it";
    RM_INPUT = "fs.rm-from-input", Block,
        "recursive rm of paths read from input (`xargs rm -r`, `parallel rm -r`)",
        "list the paths first, then delete them by name";
    STRICT_RM = "fs.strict-rm", Block,
        "rm -rf is not allowed (the guard's strict_rm setting)",
        "delete files by name, without -rf";
    FIND_DELETE = "fs.find-delete", Block,
        "find deleting everything under a root, a home, the project or a directory outside it (`-delete`, `-exec rm`, no -name/-path/... filter)",
        "`find ... -print` first, then narrow it with -name, -path or -mtime";
    FIND_DELETE_PROJECT = "fs.find-delete-in-project", Ask,
        "find deleting everything under a directory of the project",
        "`find ... -print` first, then narrow it with -name, -path or -mtime";
    SHRED = "fs.shred", Ask,
        "shred overwrites files so that nothing can recover them",
        "`rm` (or move the file to a temporary directory) unless the data must be unrecoverable";
    SHRED_DEVICE = "fs.shred-device", Block,
        "shred of a device wipes the disk",
        "nothing: run it yourself if you mean it";
    MKFS = "fs.mkfs", Block,
        "mkfs formats a filesystem, destroying what was on it",
        "nothing: run it yourself if you mean it";
    DD_DEVICE = "fs.dd-device", Block,
        "dd onto a device overwrites the disk",
        "write to an image file (`of=disk.img`)";
    CHMOD_ROOT = "fs.chmod-root", Block,
        "recursive world-writable chmod, or recursive chown, of a root or system directory",
        "change the files you mean, in your own directories";
    FORK_BOMB = "fs.fork-bomb", Block,
        "a fork bomb exhausts the machine's processes",
        "nothing";
}

/// Top-level directories of a system, as [`is_root_like`] names them.
const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
];

/// A target that names a root, a home, the current directory or a system directory as written
/// (for `chmod`/`chown`; `rm`, `find` and `shred` resolve theirs with [`place`]).
pub(crate) fn is_root_like(target: &str) -> bool {
    let t = target.trim_end_matches('/');
    let t = t.strip_suffix("/*").unwrap_or(t);
    matches!(t, "" | "/" | "~" | "$HOME" | "${HOME}" | "*" | "/*" | "." | "..") || SYSTEM_DIRS.contains(&t)
}

/// Directory names whose contents a build or a tool makes again: deleting them loses nothing.
const REGENERABLE: &[&str] = &[
    "target", "build", "dist", "out", "node_modules", ".cache", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox",
    ".venv", "venv", ".next", ".nuxt", ".turbo", ".parcel-cache", ".svelte-kit", ".angular", ".dart_tool", ".gradle", ".terraform", "coverage",
    "htmlcov", ".coverage", "obj", ".eggs", ".sass-cache", "DerivedData", "tmp", ".tmp",
];

/// Where a deletion's target is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A temporary directory (`/tmp`, `/var/tmp`, `/dev/shm`, `$TMPDIR`).
    Temp,
    /// A build output or a cache.
    Regenerable,
    /// `/`, a top-level directory, a home directory.
    Root,
    /// The whole project: the current directory or everything in it.
    ProjectWhole,
    /// A `.git` directory, or something in one.
    GitDir,
    /// A directory of the project.
    Project,
    /// What looks like a file of the project (`old.yml`, `package-lock.json`): removing a file is
    /// an edit like any other.
    ProjectFile,
    /// Anything else: outside the project and the temporary directories.
    Outside,
    /// Known only when the command runs.
    Unknown,
}

/// Unambiguous cache directories: anywhere in a path outside the project, what they hold is
/// made again by the tool that keeps them (`~/.cache/pip`, `/srv/app/node_modules/x`).
const CACHES: &[&str] = &[".cache", "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".gradle", ".npm", ".venv"];

/// A component made only of glob characters (`*`, `?*`, `.*`): the directory before it is emptied.
fn is_glob_only(c: &str) -> bool {
    !c.is_empty() && c.chars().all(|ch| matches!(ch, '*' | '?')) || c == ".*"
}

/// Where `target` is, for a process whose working directory is `cwd` (the event's, when the
/// runtime sends it: the project).
pub(crate) fn place(target: &str, cwd: Option<&str>) -> Place {
    let t = target.trim();
    if t.is_empty() {
        return Place::Unknown;
    }
    if let Some(r) = ["$TMPDIR", "${TMPDIR}"].iter().find_map(|h| t.strip_prefix(h).filter(|r| r.is_empty() || r.starts_with('/'))) {
        return if r.split('/').any(|c| c == "..") { Place::Unknown } else { Place::Temp };
    }
    if t.starts_with('~') && t != "~" && !t.starts_with("~/") {
        // `~user`: another user's home, or something in it.
        return if t.trim_end_matches('/').contains('/') { Place::Outside } else { Place::Root };
    }
    let home_var = ["$HOME", "${HOME}"].iter().find_map(|h| t.strip_prefix(h).filter(|r| r.is_empty() || r.starts_with('/'))).unwrap_or(t);
    if home_var.contains(['$', '`']) {
        return Place::Unknown;
    }
    // A trailing glob empties the directory before it: `build/*` is `build`, `*` is `.`.
    let mut written: Vec<&str> = t.split('/').collect();
    while written.last().is_some_and(|c| is_glob_only(c) || (c.is_empty() && written.len() > 1)) {
        written.pop();
    }
    let written = match written.join("/") {
        w if w.is_empty() && t.starts_with('/') => "/".to_string(),
        w if w.is_empty() => ".".to_string(),
        w => w,
    };
    let cwd = cwd.filter(|c| c.starts_with('/'));
    let project = cwd.map(|c| components(c, None));
    let mut parts = components(&written, cwd);
    // `~` is the home the working directory is in, when it is in one.
    if parts.first().is_some_and(|p| p == "~") {
        if let Some(home) = project.as_deref().and_then(home_of) {
            parts.splice(..1, home);
        }
    }
    // A glob inside a name (`src/*.rs`) stands for the names it matches: judge its directory.
    // A last name like `*.log` matches files: in the project that is an edit like `rm *.log`.
    let mut files = false;
    if let Some(first_glob) = parts.iter().position(|c| c.contains(['*', '?', '['])) {
        files = first_glob + 1 == parts.len() && project_entry(&[parts[first_glob].as_str()]) == Place::ProjectFile;
        parts.truncate(first_glob);
        if parts.is_empty() {
            return Place::ProjectFile;
        }
    }
    match judge(&parts, project.as_deref()) {
        Place::Project | Place::ProjectWhole if files => Place::ProjectFile,
        place => place,
    }
}

/// Where resolved `parts` are, given the project's resolved directory.
fn judge(parts: &[String], project: Option<&[String]>) -> Place {
    let strs: Vec<&str> = parts.iter().map(String::as_str).collect();
    // Below the project root (or relative, when the event names no working directory).
    let inside = match (strs.first(), project) {
        (Some(&"/"), Some(root)) => parts.starts_with(root).then(|| &strs[root.len()..]),
        (Some(&"/" | &"~" | &".."), _) => None,
        (_, _) => Some(&strs[..]),
    };
    if let Some(below) = inside {
        return if below.is_empty() {
            Place::ProjectWhole
        } else if below.contains(&".git") {
            Place::GitDir
        } else if below.iter().any(|c| REGENERABLE.contains(c)) {
            Place::Regenerable
        } else {
            project_entry(below)
        };
    }
    if let ["/", "tmp", ..] | ["/", "var", "tmp", ..] | ["/", "dev", "shm", ..] = strs.as_slice() {
        return Place::Temp;
    }
    if strs.contains(&".git") {
        return Place::GitDir;
    }
    if strs.last().is_some_and(|c| REGENERABLE.contains(c)) || strs.iter().any(|c| CACHES.contains(c)) {
        return Place::Regenerable;
    }
    match strs.as_slice() {
        ["/"] | ["/", _] | ["~"] | ["~", ".."] => Place::Root,
        ["/", rest @ ..] if is_home(rest) => Place::Root,
        _ => Place::Outside,
    }
}

/// A path in the project: a file, by its name's extension, or a directory.
fn project_entry(path: &[&str]) -> Place {
    let file_like = path.last().and_then(|name| name.rsplit_once('.')).is_some_and(|(stem, ext)| {
        !stem.is_empty() && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric()) && !ext.chars().all(|c| c.is_ascii_digit())
    });
    if file_like {
        Place::ProjectFile
    } else {
        Place::Project
    }
}

/// `/home/<user>`, `/Users/<user>`, `/root` (the components after `/`).
fn is_home(path: &[&str]) -> bool {
    matches!(path, ["home" | "Users", _] | ["root"])
}

/// The home directory a resolved working directory is in, when it is in one.
fn home_of(cwd: &[String]) -> Option<Vec<String>> {
    let s: Vec<&str> = cwd.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["/", "home" | "Users", _, ..] => Some(cwd[..3].to_vec()),
        ["/", "root", ..] => Some(cwd[..2].to_vec()),
        _ => None,
    }
}

/// The finding for deleting `target` recursively (rm) at `place`.
pub(crate) fn rm_finding(target: &str, place: Place) -> Option<Finding> {
    Some(match place {
        Place::Temp | Place::Regenerable | Place::ProjectFile => return None,
        Place::Root | Place::ProjectWhole => RM_ROOT.finding_for(format!("recursive delete of {target}")),
        Place::GitDir => RM_GIT.finding_for(format!("recursive delete of {target}, a repository's history")),
        Place::Outside => RM_OUTSIDE.finding_for(format!("recursive delete of {target}, outside the project")),
        Place::Project => RM_PROJECT.finding_for(format!("recursive delete of {target} in the project")),
        Place::Unknown => RM_UNKNOWN.finding_for(format!("recursive delete of {target}, a path known only when the command runs")),
    })
}

/// The filesystem rules for `prog args`. `from_input`: the command's arguments are extended
/// with words read from input (`xargs`, `parallel`).
pub(crate) fn check(prog: &str, args: &[String], strict_rm: bool, from_input: bool, cwd: Option<&str>) -> Option<Finding> {
    match prog {
        "rm" => rm(args, strict_rm, from_input, cwd),
        "find" => find(args, cwd),
        "shred" => {
            let targets: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if let Some(dev) = targets.iter().find(|t| t.starts_with("/dev/")) {
                return Some(SHRED_DEVICE.finding_for(format!("shred of the device {dev}")));
            }
            let kept = targets.iter().all(|t| place(t, cwd) == Place::Temp);
            (!targets.is_empty() && !kept).then(|| SHRED.finding_for(format!("shred of {}", targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" "))))
        }
        // With no device it prints its usage.
        p if (p == "mkfs" || p.starts_with("mkfs.")) && args.iter().any(|a| !a.starts_with('-')) => Some(MKFS.finding_for(format!("{p} formats a filesystem"))),
        "dd" => args
            .iter()
            .find_map(|a| a.strip_prefix("of=").filter(|dev| dev.starts_with("/dev/") && !matches!(*dev, "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr")))
            .map(|dev| DD_DEVICE.finding_for(format!("dd writes to the device {dev}"))),
        "chmod" | "chown" => {
            let recursive = args.iter().any(|a| a == "-R" || a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains('R')));
            let wide_open = prog == "chown" || args.iter().any(|a| a == "777" || a == "a+rwx" || a == "ugo+rwx" || a == "0777");
            let target = args.iter().filter(|a| !a.starts_with('-')).skip(1).find(|t| is_root_like(t))?;
            (recursive && wide_open).then(|| CHMOD_ROOT.finding_for(format!("recursive {prog} of {target}")))
        }
        _ => None,
    }
}

fn rm(args: &[String], strict_rm: bool, from_input: bool, cwd: Option<&str>) -> Option<Finding> {
    let (mut recursive, mut force, mut options_done) = (false, false, false);
    let mut targets = Vec::new();
    for a in args {
        match a.as_str() {
            "--" if !options_done => options_done = true,
            "--recursive" if !options_done => recursive = true,
            "--force" if !options_done => force = true,
            "--no-preserve-root" if !options_done => return Some(RM_NO_PRESERVE.finding_for("rm --no-preserve-root".into())),
            // `--help` removes nothing. `-i` / `-I` / `--interactive` ask on the terminal — an
            // agent has none, and `yes | rm -rI ~` answers them: judged as if not there.
            "--help" | "--version" if !options_done => return None,
            flag if !options_done && flag.starts_with("--interactive") => {}
            flag if !options_done && flag.starts_with('-') && !flag.starts_with("--") && flag.len() > 1 => {
                recursive |= flag.contains('r') || flag.contains('R');
                force |= flag.contains('f');
            }
            target => targets.push(target),
        }
    }
    if !recursive {
        return None;
    }
    // `{}`: a path xargs -I, parallel or find -exec puts there from its input.
    let from_input = from_input || targets.iter().any(|t| t.contains("{}"));
    let found = Finding::first_block_else_ask(targets.iter().map(|t| rm_finding(t, place(t, cwd))));
    if found.as_ref().is_some_and(|f| f.verdict == Verdict::Block) {
        return found;
    }
    if from_input {
        return Some(RM_INPUT.finding_for("recursive delete of paths read from input (xargs rm -r)".into()));
    }
    if strict_rm && force {
        return Some(STRICT_RM.finding_for("rm -rf is not allowed".into()));
    }
    found
}

/// Programs that delete what they are given, as `find -exec` runs them.
pub(crate) const DELETERS: &[&str] = &["rm", "rmdir", "unlink", "shred"];

/// The commands `find` runs for each file (`-exec CMD… ;`, `-execdir`, `-ok`, `-okdir`).
pub(crate) fn find_execs(args: &[String]) -> impl Iterator<Item = &[String]> {
    let mut rest = args;
    std::iter::from_fn(move || {
        let at = rest.iter().position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))?;
        let body = &rest[at + 1..];
        let end = body.iter().position(|a| a == ";" || a == "+").unwrap_or(body.len());
        rest = body.get(end + 1..).unwrap_or(&[]);
        Some(&body[..end])
    })
}

fn find(args: &[String], cwd: Option<&str>) -> Option<Finding> {
    let starts: Vec<&str> = args.iter().map(String::as_str).take_while(|a| !a.starts_with('-') && !matches!(*a, "(" | "!" | ",")).collect();
    // Deleting: `-delete`, or running a deleter or a shell (`-exec sh -c 'rm -rf "$1"' _ {} ;`)
    // on each file.
    let deletes = args.iter().any(|a| a == "-delete")
        || find_execs(args).any(|argv| argv.first().is_some_and(|p| {
            let p = shell::program(p);
            DELETERS.contains(&p) || matches!(p, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish")
        }));
    // A filter narrows what is deleted — unless it matches every name (`-name '*'`,
    // `-regex '.*'`).
    let match_all = |p: &str| p.chars().all(|c| c == '*');
    let filtered = args.windows(2).any(|w| match w[0].as_str() {
        "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" => !match_all(&w[1]),
        "-regex" | "-iregex" => !matches!(w[1].as_str(), ".*" | ".+" | "^.*$" | ".*.*"),
        "-newer" | "-mtime" | "-mmin" | "-atime" | "-amin" | "-ctime" | "-cmin" | "-size" | "-user" | "-group" | "-links" | "-inum" | "-samefile" => true,
        _ => false,
    }) || args.iter().any(|a| a == "-empty");
    if !deletes || filtered {
        return None;
    }
    // find(1): no starting point is `.`.
    let starts = if starts.is_empty() { vec!["."] } else { starts };
    Finding::first_block_else_ask(starts.iter().map(|s| match place(s, cwd) {
        Place::Temp | Place::Regenerable | Place::ProjectFile => None,
        Place::Project => Some(FIND_DELETE_PROJECT.finding_for(format!("find deletes everything under {s}"))),
        Place::Unknown => Some(FIND_DELETE_PROJECT.finding_for(format!("find deletes everything under {s}, a path known only when it runs"))),
        _ => Some(FIND_DELETE.finding_for(format!("find deletes everything under {s}"))),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_resolved_before_they_are_judged() {
        let p = Some("/home/u/project");
        for (target, cwd, want) in [
            ("/", None, Place::Root),
            ("/etc", None, Place::Root),
            ("/tmp/../etc", None, Place::Root),
            ("/tmp/x/../../etc/nginx", None, Place::Outside),
            ("/tmp/build", None, Place::Temp),
            ("/tmp", None, Place::Temp),
            ("/var/tmp/x", None, Place::Temp),
            ("$TMPDIR/x", None, Place::Temp),
            ("~", None, Place::Root),
            ("~/", None, Place::Root),
            ("~/*", None, Place::Root),
            ("$HOME", None, Place::Root),
            ("${HOME}/docs", None, Place::Outside),
            ("~/..", None, Place::Root),
            ("~bob", None, Place::Root),
            ("~/project/build", None, Place::Regenerable),
            ("~/.cache/pip", None, Place::Regenerable),
            ("target", None, Place::Regenerable),
            ("./node_modules", None, Place::Regenerable),
            ("build/*", None, Place::Regenerable),
            (".", None, Place::ProjectWhole),
            ("*", None, Place::ProjectWhole),
            ("./", None, Place::ProjectWhole),
            (".*", None, Place::ProjectWhole),
            ("src", None, Place::Project),
            ("src/*.rs", None, Place::ProjectFile),
            ("src/*", None, Place::Project),
            ("/etc/*.conf", None, Place::Root),
            ("*.tmp", Some("/home/u/project"), Place::ProjectFile),
            ("old.yml", None, Place::ProjectFile),
            (".github/workflows/old.yml", None, Place::ProjectFile),
            ("v1.2", None, Place::Project),
            ("conf.d", None, Place::ProjectFile),
            ("~/notes.txt", None, Place::Outside),
            ("/home/u/project/a.json", Some("/home/u/project"), Place::ProjectFile),
            ("*.log", None, Place::ProjectFile),
            (".", Some("/tmp/p"), Place::ProjectWhole),
            ("src", Some("/tmp/p"), Place::Project),
            ("../q", Some("/tmp/p"), Place::Temp),
            ("..", None, Place::Outside),
            ("../other", None, Place::Outside),
            (".git", None, Place::GitDir),
            ("sub/.git/", None, Place::GitDir),
            ("$DIR", None, Place::Unknown),
            ("$HOMEDIR/x", None, Place::Unknown),
            ("$(pwd)/src", None, Place::Unknown),
            ("/home/u/project", p, Place::ProjectWhole),
            ("/home/u/project/src", p, Place::Project),
            ("src", p, Place::Project),
            (".", p, Place::ProjectWhole),
            ("..", p, Place::Root),
            ("../other", p, Place::Outside),
            ("../../..", p, Place::Root),
            ("~/project/docs", p, Place::Project),
            ("~/Documents", p, Place::Outside),
            ("~", p, Place::Root),
            ("/home/u/other", p, Place::Outside),
            ("/opt/app/data", None, Place::Outside),
        ] {
            assert_eq!(place(target, cwd), want, "{target} in {cwd:?}");
        }
    }
}
