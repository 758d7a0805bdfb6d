//! Paths as the guard reads them: resolved lexically against the event's `cwd`, and matched
//! with shell-style wildcards. Shared by the deletion rules ([`crate::fs`]) and
//! self-protection ([`crate::protect`]).

/// A path's components, lexically resolved against `cwd` (`..` and `.` folded; `~`, `$HOME`
/// kept as the home marker `~`). Absolute paths start with `/`. A `..` that climbs above where
/// a relative path (or `~`) starts is kept, so `../x` stays outside: `["..", "x"]`.
pub(crate) fn components(path: &str, cwd: Option<&str>) -> Vec<String> {
    let path = path.trim();
    if path.is_empty() {
        return Vec::new();
    }
    let (mut out, rest): (Vec<String>, &str) = if let Some(r) = path.strip_prefix('/') {
        (vec!["/".into()], r)
    } else if let Some(r) = ["~", "$HOME", "${HOME}"].iter().find_map(|h| path.strip_prefix(h).filter(|r| r.is_empty() || r.starts_with('/'))) {
        (vec!["~".into()], r)
    } else {
        match cwd {
            Some(c) if c.starts_with('/') => (components(c, None), path),
            _ => (Vec::new(), path),
        }
    };
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => match out.last().map(String::as_str) {
                // `/..` is `/`.
                Some("/") => {}
                None | Some("..") | Some("~") => out.push("..".into()),
                Some(_) => {
                    out.pop();
                }
            },
            p => out.push(p.to_string()),
        }
    }
    out
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (none included)
/// and `?` any one. Linear in practice (the classic two-pointer match with one backtrack
/// point), so a long command and a pattern of many stars cannot make it crawl.
pub(crate) fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == b'?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// A move made earlier in a line: where a tree went (`to`) and where it came from (`from`).
pub(crate) struct Move {
    to: Vec<String>,
    from: String,
}

impl Move {
    /// A tree now at `to` (its components) that came from `from` (a link to it, or a move
    /// made earlier in the session: [`crate::remember`]).
    pub(crate) fn new(to: Vec<String>, from: String) -> Move {
        Move { to, from }
    }
}

/// Remember the trees `mv` moves (`mv SRC DEST`, `mv SRC... DIR`, `mv -t DIR SRC...`).
pub(crate) fn record_move(words: &[String], moved: &mut Vec<Move>) {
    let Some((prog, args)) = words.split_first() else { return };
    if hookhost_shell_parse::program(prog) != "mv" {
        return;
    }
    let mut target = None;
    let mut operands = Vec::new();
    let mut it = args.iter();
    let mut options_done = false;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" if !options_done => options_done = true,
            "-t" | "--target-directory" if !options_done => target = it.next().cloned(),
            t if !options_done && t.starts_with("--target-directory=") => target = Some(t["--target-directory=".len()..].to_string()),
            o if !options_done && o.starts_with('-') && o.len() > 1 => {}
            operand => operands.push(operand.to_string()),
        }
    }
    let (dir, sources) = match target {
        Some(dir) => (Some(dir), operands),
        None if operands.len() > 2 => {
            let dir = operands.pop();
            (dir, operands)
        }
        None if operands.len() == 2 => {
            moved.push(Move { to: components(&operands[1], None), from: operands[0].clone() });
            return;
        }
        None => return,
    };
    if let Some(dir) = dir {
        for src in sources {
            let name = src.trim_end_matches('/').rsplit('/').next().unwrap_or(&src).to_string();
            moved.push(Move { to: components(&format!("{dir}/{name}"), None), from: src });
        }
    }
}

/// `words` with each operand that lies in a moved tree named where the tree came from.
pub(crate) fn relocate<'a>(words: &'a [String], moved: &[Move]) -> std::borrow::Cow<'a, [String]> {
    if moved.is_empty() {
        return std::borrow::Cow::Borrowed(words);
    }
    let mut out = words.to_vec();
    for w in out.iter_mut().skip(1) {
        let parts = components(w, None);
        if let Some(m) = moved.iter().rev().find(|m| !m.to.is_empty() && parts.len() >= m.to.len() && parts[..m.to.len()] == m.to[..]) {
            let rest = &parts[m.to.len()..];
            *w = if rest.is_empty() { m.from.clone() } else { format!("{}/{}", m.from.trim_end_matches('/'), rest.join("/")) };
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_lexically() {
        let c = |p: &str, cwd: Option<&str>| components(p, cwd).join(" ");
        assert_eq!(c("/tmp/../etc", None), "/ etc");
        assert_eq!(c("/../..", None), "/");
        assert_eq!(c("~/x/../y", None), "~ y");
        assert_eq!(c("~/..", None), "~ ..");
        assert_eq!(c("$HOME/.claude", None), "~ .claude");
        assert_eq!(c("../x", None), ".. x");
        assert_eq!(c("a/../../b", None), ".. b");
        assert_eq!(c("../x", Some("/home/u/p")), "/ home u x");
        assert_eq!(c("./src/./lib", Some("/p")), "/ p src lib");
        assert!(components("  ", None).is_empty());
    }

    #[test]
    fn wildcards_match_runs_and_single_characters() {
        for (p, t, want) in [
            ("a*", "abc", true),
            ("*c", "abc", true),
            ("a*c", "ac", true),
            ("a*b*c", "axbyc", true),
            ("abc", "abc", true),
            ("abc", "abcd", false),
            ("a*c", "ab", false),
            ("*b*", "abc", true),
            ("a*a", "a", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("settings*.json", "settings.local.json", true),
            ("*", "", true),
            ("", "", true),
            ("", "x", false),
        ] {
            assert_eq!(wildcard(p, t), want, "{p} {t}");
        }
        // Many stars against a long text that almost matches: no exponential backtracking.
        let long = "a".repeat(100_000);
        assert!(!wildcard("*a*a*a*a*a*a*a*b", &long));
    }
}
