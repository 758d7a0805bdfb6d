//! The path patterns of Claude Code's file rules (`Read(…)`, `Edit(…)` in a hook's `if`), matched
//! the way its permissions reference ("Read and Edit") describes them — gitignore-style:
//!
//! | pattern | anchored at | example |
//! |---|---|---|
//! | `//path` | the file system root | `Read(//etc/**)` |
//! | `~/path` | the home directory | `Edit(~/.zshrc)` |
//! | `/path` | the project (Claude Code: the settings file's; here the session's working directory) | `Edit(/src/**/*.ts)` |
//! | `path`, `./path` | the working directory | `Edit(src/**)`, `Read(./.env)` |
//! | `name` (no `/`) | any depth | `Read(*.env)`, `Edit(.git)` |
//!
//! `*` matches within one path component, `**` any number of them, `?` one character; a pattern
//! naming a directory names everything under it. Paths compare as Claude Code compares them on
//! Windows — in POSIX form, `C:\Users\me` as `/c/Users/me` — and without case where the file
//! system folds it (macOS, Windows) or the path is Windows-spelled. `.` and `..` are resolved
//! before matching, so `src/../.env` is `.env`.
//!
//! A hook's `if` decides whether the hook runs at all: where the event lacks what an anchor needs
//! (no `cwd`, no home directory), the pattern is tried at every depth instead — the hook runs
//! rather than being skipped for a path that may be the one it guards.

use crate::paths::Os;

/// Where a pattern's first component must sit.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Anchor {
    Root,
    Home,
    Cwd,
    /// A pattern without a `/`: a component of that name anywhere.
    AnyDepth,
}

/// A compiled path pattern.
#[derive(Debug, Clone)]
pub(super) struct PathRule {
    anchor: Anchor,
    /// The pattern's components, `**` among them.
    parts: Vec<String>,
    /// The same, lower case: what a case-folding comparison matches against.
    folded: Vec<String>,
}

impl PathRule {
    pub(super) fn parse(glob: &str) -> PathRule {
        let g = glob.trim().replace('\\', "/");
        let g = g.trim_end_matches('/');
        let (anchor, rest) = if let Some(r) = g.strip_prefix("//") {
            (Anchor::Root, r.to_string())
        } else if let Some(r) = drive_path(g) {
            (Anchor::Root, r)
        } else if let Some(r) = g.strip_prefix("~/") {
            (Anchor::Home, r.to_string())
        } else if let Some(r) = g.strip_prefix('/') {
            (Anchor::Cwd, r.to_string())
        } else if let Some(r) = g.strip_prefix("./") {
            (Anchor::Cwd, r.to_string())
        } else if g.contains('/') {
            (Anchor::Cwd, g.to_string())
        } else {
            (Anchor::AnyDepth, g.to_string())
        };
        let parts = components(&rest);
        let folded = parts.iter().map(|p| p.to_lowercase()).collect();
        PathRule { anchor, parts, folded }
    }

    /// Whether the file at `path` (as the tool call names it) is one this pattern names, for a
    /// session in `cwd` of a user whose home is `home`; `fold`: compare without case.
    pub(super) fn matches(&self, path: &str, cwd: Option<&str>, home: Option<&str>, fold: bool) -> bool {
        let fold = fold || windows_spelled(path) || cwd.is_some_and(windows_spelled);
        let case = |s: &str| if fold { s.to_lowercase() } else { s.to_string() };
        let parts = if fold { &self.folded } else { &self.parts };
        let cwd = cwd.and_then(|c| absolute(c, None, home)).map(|c| c.iter().map(|p| case(p)).collect::<Vec<_>>());
        let Some(subject) = absolute(path, cwd.as_deref(), home) else {
            // A relative path and no working directory: the pattern from its start, or anywhere.
            let rel: Vec<String> = components(&path.replace('\\', "/")).iter().map(|p| case(p)).collect();
            return match self.anchor {
                Anchor::AnyDepth => parts.first().is_none_or(|p| rel.iter().any(|c| super::glob_match(p, c))),
                _ => anywhere(parts, &rel),
            };
        };
        let subject: Vec<String> = subject.iter().map(|p| case(p)).collect();
        let base: Option<Vec<String>> = match self.anchor {
            Anchor::AnyDepth => return parts.first().is_none_or(|p| subject.iter().any(|c| super::glob_match(p, c))),
            Anchor::Root => Some(Vec::new()),
            Anchor::Home => home.and_then(|h| absolute(h, None, None)).map(|h| h.iter().map(|p| case(p)).collect()),
            Anchor::Cwd => cwd,
        };
        match base {
            Some(base) => subject.starts_with(&base) && names(parts, &subject[base.len()..]),
            None => anywhere(parts, &subject),
        }
    }
}

/// Whether `pattern` names `path` or a directory above it (the path is inside what it names).
fn names(pattern: &[String], path: &[String]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((p, rest)) if p == "**" => (0..=path.len()).any(|i| names(rest, &path[i..])),
        Some((p, rest)) => path.first().is_some_and(|c| super::glob_match(p, c)) && names(rest, &path[1..]),
    }
}

/// `pattern` at any depth of `path`, its start included.
fn anywhere(pattern: &[String], path: &[String]) -> bool {
    (0..=path.len()).any(|i| names(pattern, &path[i..]))
}

/// `path` as absolute components (`.` and `..` resolved), from `cwd` when it is relative, or
/// `None` when it is relative and there is no working directory to read it from.
fn absolute(path: &str, cwd: Option<&[String]>, home: Option<&str>) -> Option<Vec<String>> {
    let p = path.replace('\\', "/");
    let (mut out, rest): (Vec<String>, String) = if let Some(r) = drive_path(&p) {
        (Vec::new(), r)
    } else if let Some(r) = p.strip_prefix('/') {
        (Vec::new(), r.to_string())
    } else if let Some(r) = p.strip_prefix("~/").or((p == "~").then_some("")) {
        (absolute(home?, None, None)?, r.to_string())
    } else {
        (cwd?.to_vec(), p.clone())
    };
    for c in rest.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c.to_string()),
        }
    }
    Some(out)
}

/// A relative path's components, `.` dropped and `..` kept (nothing to resolve it against).
fn components(path: &str) -> Vec<String> {
    path.split('/').filter(|c| !c.is_empty() && *c != ".").map(str::to_string).collect()
}

/// `C:/rest` or `C:\rest` in POSIX form, as Claude Code reads it on Windows: `c/rest` (the
/// drive letter lower case, from the root).
fn drive_path(p: &str) -> Option<String> {
    let b = p.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'/' || b[2] == b'\\')).then(|| format!("{}/{}", (b[0] as char).to_ascii_lowercase(), &p[3..]))
}

/// A path spelled the Windows way (a drive letter, or `\` between components): its file system
/// folds case whatever this host is.
fn windows_spelled(p: &str) -> bool {
    drive_path(p).is_some() || p.contains('\\')
}

/// Whether this host's file system folds case ([`Os::folds_case`]).
pub(super) fn host_folds_case() -> bool {
    Os::CURRENT.folds_case()
}

/// The home directory of the user hookhost runs as (the agent's user).
pub(super) fn home() -> Option<String> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var(var).ok().filter(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(rule: &str, path: &str, cwd: Option<&str>, fold: bool) -> bool {
        PathRule::parse(rule).matches(path, cwd, Some("/home/me"), fold)
    }

    #[test]
    fn anchors_as_claude_code_documents_them() {
        let cwd = Some("/home/me/proj");
        let cases: &[(&str, &str, bool)] = &[
            // Relative to the working directory: the absolute path a tool call carries.
            ("src/**", "/home/me/proj/src/main.rs", true),
            ("src/**", "/home/me/proj/src/a/b/c.rs", true),
            ("src/**", "/home/me/other/src/main.rs", false),
            ("./.env", "/home/me/proj/.env", true),
            ("./.env", "/home/me/proj/sub/.env", false),
            ("src/*.rs", "/home/me/proj/src/main.rs", true),
            ("src/*.rs", "/home/me/proj/src/a/main.rs", false),
            ("src/**/*.rs", "/home/me/proj/src/a/main.rs", true),
            ("src/**/*.rs", "/home/me/proj/src/main.rs", true),
            // A directory names what is under it.
            ("secrets", "/home/me/proj/secrets/key.pem", true),
            ("config/secrets", "/home/me/proj/config/secrets/key.pem", true),
            // Project-relative `/path` (the session's directory here).
            ("/src/**/*.ts", "/home/me/proj/src/ui/app.ts", true),
            ("/src/**/*.ts", "/src/ui/app.ts", false),
            // `//` from the root, `~/` from home.
            ("//etc/**", "/etc/passwd", true),
            ("//etc/**", "/home/me/proj/etc/x", false),
            ("~/.zshrc", "/home/me/.zshrc", true),
            ("~/.ssh/**", "/home/me/.ssh/id_ed25519", true),
            ("~/.ssh/**", "/home/me/proj/.ssh/id_ed25519", false),
            // No `/`: a component of that name at any depth.
            ("*.env", "/home/me/proj/deploy/prod.env", true),
            ("*.env", "/home/me/proj/deploy/prod.envrc", false),
            (".git", "/home/me/proj/.git/config", true),
            // `.` and `..` resolved before matching.
            ("./.env", "/home/me/proj/src/../.env", true),
            ("src/**", "/home/me/proj/src/../.env", false),
            // Relative tool paths, read from the working directory.
            ("src/**", "src/main.rs", true),
            ("./.env", ".env", true),
        ];
        for (rule, path, want) in cases {
            assert_eq!(hit(rule, path, cwd, false), *want, "{rule} on {path}");
        }
    }

    #[test]
    fn case_folds_where_the_file_system_does() {
        let cwd = Some("/Users/me/proj");
        // macOS (APFS folds case by default): `.Env` is `.env`, `SRC/` is `src/`.
        assert!(hit("./.env", "/Users/me/proj/.Env", cwd, true));
        assert!(hit("src/**", "/users/ME/proj/SRC/Main.rs", cwd, true));
        assert!(hit("*.PEM", "/Users/me/proj/key.pem", cwd, true));
        // Linux: names differ by case.
        assert!(!hit("./.env", "/Users/me/proj/.Env", cwd, false));
        assert!(!hit("src/**", "/Users/me/proj/SRC/main.rs", cwd, false));
    }

    #[test]
    fn windows_paths_in_posix_form() {
        let cwd = Some(r"C:\Users\Me\proj");
        // Claude Code on Windows: `C:\x` is `/c/x`, `\` a separator, case folded.
        assert!(hit("src/**", r"C:\Users\Me\proj\src\main.rs", cwd, false));
        assert!(hit("./.env", r"c:\users\me\PROJ\.ENV", cwd, false));
        assert!(hit("//c/Users/me/secrets/**", r"C:\Users\Me\secrets\token.txt", None, false));
        assert!(hit(r"C:\Users\me\secrets\**", r"C:\Users\Me\secrets\token.txt", None, false));
        assert!(hit("*.env", r"D:\work\prod.ENV", None, false));
        assert!(!hit("src/**", r"C:\Users\Me\other\src\main.rs", cwd, false));
        assert!(!hit("//c/Users/me/secrets/**", r"D:\Users\Me\secrets\token.txt", None, false));
        // Forward slashes with a drive letter, as some tools write them.
        assert!(hit("src/**", "C:/Users/Me/proj/src/main.rs", cwd, false));
    }

    #[test]
    fn without_what_an_anchor_needs_the_pattern_is_tried_at_every_depth() {
        // No cwd: `src/**` may be the project's src: the hook runs.
        assert!(hit("src/**", "/home/me/proj/src/main.rs", None, false));
        assert!(!hit("src/**", "/home/me/proj/lib/main.rs", None, false));
        // No home.
        assert!(PathRule::parse("~/.ssh/**").matches("/root/.ssh/id_rsa", None, None, false));
        // A relative path and no cwd: from its start.
        assert!(hit("src/*", "src/main.rs", None, false));
        assert!(!hit("src/*", "lib/main.rs", None, false));
    }
}
