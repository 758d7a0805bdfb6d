//! Which paths are hook configuration: the files, directories and managed locations every
//! runtime keeps its hooks in, and how a path (relative, globbed, Windows-spelled) is compared
//! with them.

use super::*;

/// Hook configuration a project or a user keeps, as trailing path components (any directory),
/// lower case.
pub(super) static FILES: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".gemini/trustedfolders.json",
    ".github/copilot/settings.json",
    ".github/copilot/settings.local.json",
    ".copilot/settings.json",
    ".copilot/config.json",
    "opencode.json",
    "opencode.jsonc",
    ".qwen/settings.json",
    ".qwen/trustedfolders.json",
    ".cursor/hooks.json",
    // Antigravity CLI's hooks, a project's and the user's.
    ".agents/hooks.json",
    ".gemini/config/hooks.json",
    // Starchild's hooks and the master switch that turns them on (its workspace's `config/`).
    "config/shell_hooks.yaml",
    "config/agent.yaml",
    // docker-agent's user config: its `settings.hooks`.
    ".config/cagent/config.yaml",
    "hooks.lock",
];

/// Directories whose whole content is hook configuration or hookhost's state.
pub(super) static DIRS: &[&str] = &[
    ".hookhost",
    ".github/hooks",
    ".copilot/hooks",
    ".claude/hooks",
    ".cursor/hooks",
    // docker-agent's drop-in hooks (hookhost's is one): every file in it is a hooks block.
    ".config/cagent/hooks.d",
    // OpenCode's own directories: the plugins it loads at start (hookhost's is one), and the
    // agents and commands beside them.
    ".opencode",
    ".config/opencode",
    ".config/hookhost",
    ".local/state/hookhost",
    ".local/share/hookhost",
    ".cache/hookhost",
    // hookhost's directories on macOS and Windows (hookhost_types::paths).
    "library/application support/hookhost",
    "library/caches/hookhost",
    "appdata/roaming/hookhost",
    "appdata/local/hookhost",
];

/// Directories that hold hook configuration among other things: nothing may be copied, moved,
/// linked or extracted into them (what lands there is not known by name).
pub(super) static CONFIG_DIRS: &[&str] = &[".claude", ".codex", ".gemini", ".copilot", ".github/copilot", ".qwen", ".cursor"];

/// What a deletion may remove although nothing may write it: hookhost's cache of compiled
/// components, made again on the next run.
pub(super) static REBUILDABLE: &[&str] = &[".cache", ".cache/hookhost", "library/caches", "library/caches/hookhost", "appdata/local/hookhost/cache"];

/// Managed locations, from the root (a drive letter reads as the root): Linux's, macOS's
/// (`/Library/Application Support/…`), Windows' (`C:\ProgramData\…`, Claude Code's `C:\Program
/// Files\ClaudeCode`).
pub(super) static ROOTED: &[&str] = &[
    "/etc/hookhost",
    "/etc/claude-code",
    "/etc/codex",
    "/etc/gemini-cli",
    "/etc/github-copilot",
    "/etc/qwen-code",
    "/etc/cursor",
    "/var/lib/hookhost",
    "/var/log/hookhost",
    "/library/application support/hookhost",
    "/library/application support/claudecode",
    "/library/application support/geminicli",
    "/library/application support/qwencode",
    "/library/application support/cursor",
    "/programdata/hookhost",
    "/programdata/claudecode",
    "/programdata/gemini-cli",
    "/programdata/qwen-code",
    "/programdata/cursor",
    "/program files/claudecode",
];

/// File names the guard's [`FILES`] and hookhost's layers use, for `find -name` filters.
pub(super) static NAMES: &[&str] = &["settings.json", "settings.local.json", "hooks.json", "config.toml", "trustedfolders.json", "config.json", "hooks.lock", "hooks.toml", "managed.toml", "hooks", "hooks.d", "shell_hooks.yaml", ".hookhost", "hookhost", ".claude", ".codex", ".gemini", ".copilot", ".qwen", ".cursor"];

/// What a command may do to a path it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Read,
    /// Write it: a hook file, anything inside a hook directory, a directory holding one.
    Change,
    /// Delete it or what it holds: as `Change`, but hookhost's compile cache may go.
    Remove,
    /// Put files into it (a copy, move, link or extraction): as `Change`, and a directory
    /// that holds hook configuration among other things (`.claude/`).
    Into,
}

/// What `path` is, when `access` to it would change hook configuration.
pub fn protected(path: &str, cwd: Option<&str>, access: Access) -> Option<String> {
    if access == Access::Read {
        return None;
    }
    let describe = || format!("{path} (hook configuration)");
    let parts = parts(path, cwd);
    if parts.is_empty() {
        return None;
    }
    // The file's own name first (a cheap compare): most paths name none of these.
    let last = parts.last().map(String::as_str).unwrap_or_default();
    if FILES.iter().any(|p| component(last, p.rsplit('/').next().unwrap_or_default()) && ends_with(&parts, p)) {
        return Some(describe());
    }
    // Where a directory's first component is (a cheap compare) before the whole pattern is.
    let inside_dir = |dirs: &[&str]| {
        dirs.iter().any(|p| {
            let first = p.split('/').next().unwrap_or_default();
            (0..parts.len()).any(|i| component(&parts[i], first) && starts_with(&parts[i..], p))
        })
    };
    let rooted = ROOTED.iter().any(|p| parts.first().map(String::as_str) == Some("/") && starts_with(&parts[1..], p));
    if rooted {
        return Some(describe());
    }
    let rebuildable = access == Access::Remove && REBUILDABLE.iter().any(|r| ends_with(&parts, r));
    if may_be_inside(&parts) && inside_dir(DIRS) && !rebuildable {
        return Some(describe());
    }
    // A directory that holds hook configuration (`.claude`, `.github`, `~/.config`, `/etc`):
    // removing, moving or changing the mode of it as a whole reaches what it holds.
    let last = parts.last()?.as_str();
    if access == Access::Remove && !pure_wildcard(last) && !rebuildable {
        let holds = FILES.iter().chain(DIRS).filter_map(|p| p.split_once('/')).any(|(first, _)| component(last, first))
            || DIRS.iter().any(|d| component(last, d))
            || (parts.len() == 2 && parts[0] == "/" && ROOTED.iter().any(|r| component(last, r.trim_start_matches('/').split('/').next().unwrap_or(""))));
        if holds {
            return Some(format!("{path}, which {HOLDS}"));
        }
    }
    // A hook directory itself, given to a program that may write into it (its last component
    // first, a cheap compare: the guard judges every word of a brace expansion, thousands on a
    // long line, within the line's fuel).
    let names_dir = |d: &&str| component(last, d.rsplit('/').next().unwrap_or_default()) && ends_with(&parts, d);
    if !rebuildable && CONFIG_DIRS.iter().chain(DIRS).any(names_dir) {
        return Some(if path.contains(['*', '?', '[']) { format!("{path}, which {HOLDS}") } else { describe() });
    }
    None
}

/// Whether `parts` can be inside one of [`DIRS`]: each begins with a component that starts
/// with `.` or is `library` / `appdata`, so a path with none of those (and no wildcard, which
/// may stand for one) is inside none. A cheap test before the patterns: the guard judges every
/// word of a brace expansion, thousands on a long line, within the line's fuel.
pub(super) fn may_be_inside(parts: &[String]) -> bool {
    parts.iter().any(|x| x.starts_with('.') || x == "library" || x == "appdata" || x.contains(['*', '?', '[']))
}

/// How a reason says a path is protected because it holds hook configuration (`/etc`, `~`) or
/// is a glob that may name some (`.*`): where the destructive rules also stop the command,
/// theirs is the better reason.
pub(crate) const HOLDS: &str = "reaches hook configuration";

/// A path written, removed or linked over that is hookhost's own binary in a `bin` directory
/// (`~/.cargo/bin/hookhost`, `/usr/local/bin/hookhost-send`), or a name computed from finding it
/// (`rm "$(which hookhost)"`): hookhost removed or replaced.
pub(super) fn replaces_binary(path: &str, cwd: Option<&str>) -> Option<Finding> {
    let parts = parts(path, cwd);
    let last = parts.last()?.as_str();
    let named = matches!(last, "hookhost" | "hookhost-send" | "hookhost.exe" | "hookhost-send.exe");
    let in_bin = parts.len() >= 2 && matches!(parts[parts.len() - 2].as_str(), "bin" | "sbin" | ".bin");
    (named && in_bin).then(|| STOP.finding_for(format!("{path} is hookhost itself")))
}

/// The path's components as self-protection compares them: `\` read as `/`, a drive letter as
/// the root, lower case (macOS and Windows fold case).
pub(super) fn parts(path: &str, cwd: Option<&str>) -> Vec<String> {
    let fold = |p: &str| {
        let p = if p.contains('\\') { p.replace('\\', "/") } else { p.to_string() };
        let mut p = if is_windows_absolute(&p) { format!("/{}", &p[3..]) } else { p };
        p.make_ascii_lowercase();
        windows_variable(&p).unwrap_or(p)
    };
    let cwd = cwd.map(fold);
    let path = fold(path);
    // A relative working directory (after `cd dir` with none known) is joined as text.
    match cwd.as_deref() {
        Some(c) if !c.starts_with('/') && !path.starts_with('/') && !path.starts_with('~') && !path.starts_with('$') => components(&format!("{c}/{path}"), None),
        c => components(&path, c),
    }
}

/// A path that starts with a Windows directory variable (`%APPDATA%`, PowerShell's
/// `$env:APPDATA`; folded to lower case) read as where it points for the user: under `~`, or
/// from the root for `ProgramData`.
pub(super) fn windows_variable(p: &str) -> Option<String> {
    let (name, rest) = match p.strip_prefix('%') {
        Some(r) => r.split_once('%')?,
        None => {
            let r = p.strip_prefix("$env:").or_else(|| p.strip_prefix("${env:"))?;
            let end = r.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(r.len());
            (&r[..end], r[end..].trim_start_matches('}'))
        }
    };
    let base = match name {
        "appdata" => "~/appdata/roaming",
        "localappdata" => "~/appdata/local",
        "userprofile" | "home" => "~",
        "programdata" | "allusersprofile" => "/programdata",
        "programfiles" => "/program files",
        _ => return None,
    };
    Some(format!("{base}{rest}"))
}

pub(super) fn is_windows_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'/' || b[2] == b'\\')
}

/// A path component against a protected name: glob characters match as the shell matches
/// them (a `[…]` class as one character; a leading `.` only literally).
pub(super) fn component(part: &str, name: &str) -> bool {
    if !part.contains(['*', '?', '[']) {
        return part == name;
    }
    if name.starts_with('.') && !part.starts_with('.') {
        return false;
    }
    wildcard(&classes_as_any(part), name)
}

/// `[…]` classes read as `?` (any one character): enough to know a glob may name a file.
pub(super) fn classes_as_any(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len());
    let mut in_class = false;
    for c in glob.chars() {
        match c {
            '[' if !in_class => {
                in_class = true;
                out.push('?');
            }
            ']' if in_class => in_class = false,
            _ if in_class => {}
            c => out.push(c),
        }
    }
    out
}

pub(super) fn pure_wildcard(part: &str) -> bool {
    part.chars().all(|c| matches!(c, '*' | '?'))
}

/// Whether `parts` begins with `pattern`, and names it: a pattern met only by bare `*` words
/// (`build/*` against `hooks.lock`) is not named.
pub(super) fn starts_with(parts: &[String], pattern: &str) -> bool {
    // A protected pattern's components (`/etc/hookhost` from the root), compared as they are
    // split, stopping at the first that differs: no list is built (this runs for every word of
    // a brace expansion, thousands on a long line, within the line's fuel).
    let mut n = 0;
    for pat in pattern.trim_start_matches('/').split('/') {
        match parts.get(n) {
            Some(part) if component(part, pat) => n += 1,
            _ => return false,
        }
    }
    parts[..n].iter().any(|part| !pure_wildcard(part))
}

pub(super) fn ends_with(parts: &[String], pattern: &str) -> bool {
    let pattern = pattern.trim_start_matches('/');
    let len = pattern.bytes().filter(|&b| b == b'/').count() + 1;
    parts.len() >= len && starts_with(&parts[parts.len() - len..], pattern)
}
