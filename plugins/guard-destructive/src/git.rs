//! The `core` pack's git rules: what throws away a user's uncommitted work, their local history
//! or a shared branch's history, each with the safer command to suggest instead.
//!
//! Read from git's own documentation (git-reset(1), git-clean(1), git-checkout(1),
//! git-restore(1), git-push(1), git-branch(1), git-stash(1), git-reflog(1), git-gc(1),
//! git-filter-branch(1), git-update-ref(1), git-worktree(1)) and git(1) for the options that
//! come before the subcommand. A repository in a temporary directory (`git -C /tmp/...`) is
//! scratch: nothing in it is checked.

use crate::{Finding, Rule};

rules! {
    RESET_HARD = "git.reset-hard", Block,
        "git reset --hard discards every uncommitted change in the working tree and index",
        "`git stash` first (or `git reset --keep`, which refuses to overwrite local changes)";
    RESET_MERGE = "git.reset-merge", Ask,
        "git reset --merge can discard staged changes",
        "`git merge --abort` to leave a merge, or `git stash` first";
    CLEAN = "git.clean-force", Block,
        "git clean -f deletes untracked files (with -x also ignored ones, with -d whole directories); git cannot bring them back",
        "`git clean -n` (a dry run) to see what would go, then delete those paths by name";
    CHECKOUT_PATHS = "git.checkout-discard", Block,
        "git checkout of paths (`checkout -- <paths>`, `checkout .`, `checkout -f`), or `git switch --discard-changes` / `-f`, overwrites uncommitted changes",
        "`git stash` first, or `git diff > backup.patch`";
    RESTORE = "git.restore-worktree", Block,
        "git restore of the working tree overwrites uncommitted changes",
        "`git restore --staged <paths>` only unstages; `git stash` keeps the changes";
    PUSH_FORCE = "git.push-force", Block,
        "git push --force (-f, +refspec, --mirror) overwrites the remote branch and can drop commits others pushed",
        "`git push --force-with-lease`, which refuses when the remote moved";
    PUSH_LEASE = "git.push-force-with-lease", Ask,
        "git push --force-with-lease still rewrites the remote branch's history",
        "push to a branch of your own, or merge instead of rebasing shared history";
    PUSH_DELETE = "git.push-delete", Ask,
        "git push --delete (or `:branch`) deletes a branch on the remote",
        "leave the branch, or delete it in the forge's UI where it can be restored";
    RM_FORCE = "git.rm-force", Ask,
        "git rm -f deletes files from the working tree even when they have changes no commit holds",
        "commit or stash the changes first; `git rm --cached` keeps the files";
    BRANCH_FORCE_DELETE = "git.branch-force-delete", Ask,
        "git branch -D deletes a branch even when its commits are merged nowhere",
        "`git branch -d`, which refuses to delete unmerged work";
    STASH_DROP = "git.stash-drop", Ask,
        "git stash drop throws a stash away",
        "`git stash show -p` to look first; `git stash pop` applies and then drops it";
    STASH_CLEAR = "git.stash-clear", Block,
        "git stash clear throws away every stash",
        "`git stash list`, then drop the ones you no longer need one by one";
    REFLOG_EXPIRE = "git.reflog-expire", Block,
        "git reflog expire / delete removes the record that lets lost commits be recovered",
        "leave the reflog to `git gc`'s defaults (90 days)";
    GC_PRUNE = "git.gc-prune-now", Block,
        "git gc --prune=now (and git prune) deletes unreachable commits at once, the ones a reset or rebase just left behind",
        "plain `git gc`, which keeps two weeks of unreachable objects";
    FILTER_BRANCH = "git.filter-branch", Block,
        "git filter-branch rewrites every commit of the branches it is given",
        "rewrite history in a fresh clone (git filter-repo) and review it before pushing";
    UPDATE_REF_DELETE = "git.update-ref-delete", Block,
        "git update-ref -d deletes a ref outright",
        "`git branch -d` / `git tag -d`, which say what they remove";
    WORKTREE_FORCE = "git.worktree-remove-force", Ask,
        "git worktree remove --force deletes a worktree with uncommitted or untracked changes",
        "`git worktree remove` without --force refuses when there is work in it";
}

/// Options of git(1) that come before the subcommand and take a value in the next word (the
/// others, `--exec-path[=<path>]` among them, take theirs after `=` or none).
const GLOBAL_WITH_VALUE: &[&str] = &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"];

/// A directory whose repositories are scratch: the system's temporary directories.
fn is_temp(path: &str) -> bool {
    let path = path.trim_matches('"');
    ["/tmp", "/var/tmp", "/dev/shm", "$TMPDIR", "${TMPDIR}"]
        .iter()
        .any(|t| path == *t || path.strip_prefix(t).is_some_and(|rest| rest.starts_with('/')))
        && !path.split('/').any(|c| c == "..")
}

/// Where git's own options end (the subcommand's index in `args`) and whether the repository
/// is scratch: every directory the options name (`-C`, `--git-dir`, `--work-tree`) is a
/// temporary one.
pub(crate) fn subcommand(args: &[String]) -> (usize, bool) {
    let mut i = 0;
    let (mut named_dir, mut all_temp) = (false, true);
    while i < args.len() {
        let a = args[i].as_str();
        if !a.starts_with('-') {
            break;
        }
        let (name, inline) = a.split_once('=').map_or((a, None), |(n, v)| (n, Some(v)));
        let value = if GLOBAL_WITH_VALUE.contains(&name) && inline.is_none() {
            i += 1;
            args.get(i).map(String::as_str)
        } else {
            inline
        };
        if matches!(name, "-C" | "--git-dir" | "--work-tree") {
            named_dir = true;
            all_temp &= value.is_some_and(is_temp);
        }
        i += 1;
    }
    (i.min(args.len()), named_dir && all_temp)
}

/// The finding for `git ARGS`, if any rule matches.
pub fn check(args: &[String]) -> Option<Finding> {
    let (at, scratch) = subcommand(args);
    let (sub, rest) = args[at..].split_first()?;
    let rest = &canonical(sub, rest);
    if scratch || options(rest).any(|a| a == "-h" || a == "--help") {
        return None;
    }
    // `-c clean.requireForce=false`: git clean deletes without -f.
    let unforced_clean = config(&args[..at]).any(|(k, v)| k.eq_ignore_ascii_case("clean.requireforce") && matches!(v.to_ascii_lowercase().as_str(), "false" | "no" | "off" | "0"));
    let rule = match sub.as_str() {
        "reset" => reset(rest),
        "clean" if unforced_clean => clean(&[&["-f".to_string()][..], &rest[..]].concat()),
        "clean" => clean(rest),
        // git-read-tree(1) `-u --reset` and git-checkout-index(1) `-f` (with `-a` or paths)
        // overwrite the working tree as `checkout -f` does.
        "read-tree" => (options(rest).any(|a| a == "-u") && options(rest).any(|a| a == "--reset" || a == "-m")).then_some(&CHECKOUT_PATHS),
        "checkout-index" => (has_short(rest, 'f') || options(rest).any(|a| a == "--force")).then_some(&CHECKOUT_PATHS),
        "checkout" => checkout(rest),
        // git-switch(1): `--discard-changes` and `-f` / `--force` throw local changes away.
        "switch" => options(rest).any(|a| matches!(a, "--discard-changes" | "-f" | "--force")).then_some(&CHECKOUT_PATHS),
        // git-rm(1): `-f` removes files even with changes nothing else holds.
        "rm" => (has_short(rest, 'f') || options(rest).any(|a| a == "--force")).then_some(&RM_FORCE),
        "restore" => restore(rest),
        "push" => push(rest),
        "branch" => branch(rest),
        "stash" => stash(rest),
        "reflog" => match rest.first().map(String::as_str) {
            Some("delete") => Some(&REFLOG_EXPIRE),
            // Expiry with the configured ages is what `git gc` does anyway; `now` / `all` is not.
            Some("expire") => (!options(rest).any(|a| a == "-n" || a == "--dry-run") && rest.iter().any(|a| a.starts_with("--expire") && (a.ends_with("=now") || a.ends_with("=all") || a.ends_with("=0")))).then_some(&REFLOG_EXPIRE),
            _ => None,
        },
        "gc" => rest.iter().any(|a| matches!(a.as_str(), "--prune=now" | "--prune=all")).then_some(&GC_PRUNE),
        "prune" => (!has_short(rest, 'n') && !rest.iter().any(|a| a == "--dry-run")).then_some(&GC_PRUNE),
        "filter-branch" => Some(&FILTER_BRANCH),
        "update-ref" => options(rest).any(|a| a == "-d").then_some(&UPDATE_REF_DELETE),
        "worktree" => (rest.first().is_some_and(|a| a == "remove") && rest.iter().any(|a| a == "--force" || a == "-f")).then_some(&WORKTREE_FORCE),
        _ => None,
    }?;
    Some(rule.finding())
}

/// The shell lines `git ARGS` runs: the command `git submodule [options] foreach
/// [--recursive] COMMAND...` runs in every submodule (git-submodule(1) hands it to the shell),
/// and the commands `-c` settings name (git-config(1): `core.pager`, `core.editor`,
/// `core.sshCommand`, `core.fsmonitor`, `sequence.editor`, `diff.external`, `alias.X=!CMD`, ...),
/// which git runs.
pub fn scripts(args: &[String]) -> Vec<String> {
    let (sub, scratch) = subcommand(args);
    let mut out: Vec<String> = config(&args[..sub])
        .filter_map(|(k, v)| {
            let k = k.to_ascii_lowercase();
            let runs = matches!(k.as_str(), "core.pager" | "core.editor" | "core.sshcommand" | "core.fsmonitor" | "core.askpass" | "sequence.editor" | "diff.external" | "gpg.program" | "credential.helper")
                || k.starts_with("pager.")
                || (k.starts_with("alias.") && v.starts_with('!'))
                || (k.starts_with("diff.") || k.starts_with("merge.") || k.starts_with("filter.")) && (k.ends_with(".command") || k.ends_with(".driver") || k.ends_with(".textconv") || k.ends_with(".clean") || k.ends_with(".smudge") || k.ends_with(".process"));
            runs.then(|| v.trim_start_matches('!').to_string())
        })
        .collect();
    if !scratch && args.get(sub).map(String::as_str) == Some("submodule") {
        if let Some(foreach) = args[sub..].iter().position(|a| a == "foreach") {
            let command: Vec<&str> = args[sub + foreach + 1..].iter().map(String::as_str).skip_while(|a| matches!(*a, "--recursive" | "-q" | "--quiet")).collect();
            if !command.is_empty() {
                out.push(command.join(" "));
            }
        }
    }
    out
}

/// The `-c KEY=VALUE` settings among git's global options.
fn config(globals: &[String]) -> impl Iterator<Item = (&str, &str)> {
    globals.windows(2).filter(|w| w[0] == "-c").filter_map(|w| w[1].split_once('='))
}

/// The long options each subcommand's rules read, with the ones that share their first letters
/// (so `--m` stays ambiguous between `--merge` and `--mixed`, as git finds it). git accepts any
/// unambiguous prefix of a long option (`reset --har`, `clean --forc`; gitcli(7)): such a prefix
/// is read as the option. A prefix git would find ambiguous among options not listed here is
/// read as the listed one: git refuses such a command anyway.
fn long_options(sub: &str) -> &'static [&'static str] {
    match sub {
        "reset" => &["--hard", "--merge", "--keep", "--soft", "--mixed"],
        "clean" => &["--force", "--dry-run"],
        "checkout" | "switch" => &["--force", "--discard-changes", "--detach", "--orphan"],
        "rm" => &["--force", "--cached", "--dry-run"],
        "restore" => &["--staged", "--worktree", "--source"],
        "push" => &["--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--dry-run"],
        "branch" => &["--delete", "--force"],
        "worktree" | "checkout-index" => &["--force", "--all"],
        "read-tree" => &["--reset", "--dry-run"],
        "gc" | "prune" => &["--prune", "--dry-run"],
        _ => &[],
    }
}

/// `rest` with each long option that is an unambiguous prefix of one `sub` reads spelled out.
fn canonical<'a>(sub: &str, rest: &'a [String]) -> std::borrow::Cow<'a, [String]> {
    let known = long_options(sub);
    let options = rest.iter().take_while(|a| *a != "--");
    // The option a prefix spells out, when it is one (and not already whole).
    let spelled = |a: &str| -> Option<String> {
        let (name, value) = a.split_once('=').map_or((a, None), |(n, v)| (n, Some(v)));
        if !name.starts_with("--") || name.len() <= 2 || known.contains(&name) {
            return None;
        }
        let mut matches = known.iter().filter(|k| k.starts_with(name));
        let one = matches.next()?;
        matches.next().is_none().then(|| value.map_or(one.to_string(), |v| format!("{one}={v}")))
    };
    // Most commands spell every option whole: nothing is copied.
    if known.is_empty() || !options.clone().any(|a| spelled(a).is_some()) {
        return std::borrow::Cow::Borrowed(rest);
    }
    let n = options.count();
    let mut out: Vec<String> = rest[..n].iter().map(|a| spelled(a).unwrap_or_else(|| a.clone())).collect();
    out.extend_from_slice(&rest[n..]);
    std::borrow::Cow::Owned(out)
}

/// Whether a short-option cluster among `args` (before `--`) holds `flag` (`-fdx` holds `f`).
fn has_short(args: &[String], flag: char) -> bool {
    options(args).any(|a| a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag))
}

/// The options of `args`: the words before `--` that start with `-`.
fn options(args: &[String]) -> impl Iterator<Item = &str> {
    args.iter().map(String::as_str).take_while(|a| *a != "--").filter(|a| a.starts_with('-'))
}

fn reset(args: &[String]) -> Option<&'static Rule> {
    if options(args).any(|a| a == "--hard") {
        return Some(&RESET_HARD);
    }
    options(args).any(|a| a == "--merge").then_some(&RESET_MERGE)
}

fn clean(args: &[String]) -> Option<&'static Rule> {
    let dry = has_short(args, 'n') || options(args).any(|a| a == "--dry-run");
    let force = has_short(args, 'f') || options(args).any(|a| a == "--force");
    (force && !dry).then_some(&CLEAN)
}

fn checkout(args: &[String]) -> Option<&'static Rule> {
    // Creating or switching branches is safe: git refuses to overwrite local changes then.
    let opts: Vec<&str> = options(args).collect();
    if opts.iter().any(|a| matches!(*a, "-b" | "-B" | "--orphan")) && !opts.iter().any(|a| matches!(*a, "-f" | "--force")) {
        return None;
    }
    if opts.iter().any(|a| matches!(*a, "-f" | "--force")) || has_short(args, 'f') {
        return Some(&CHECKOUT_PATHS);
    }
    // Paths: anything after `--`; `.` or a pathspec magic; or a second word after the
    // tree-ish (`checkout <tree-ish> <pathspec>...`, git-checkout(1)).
    let after_dashes = args.iter().position(|a| a == "--").is_some_and(|p| p + 1 < args.len());
    let dot = args.iter().any(|a| matches!(a.as_str(), "." | "./" | ":/" | "*"));
    let positional = args.iter().filter(|a| !a.starts_with('-')).count();
    (after_dashes || dot || positional >= 2).then_some(&CHECKOUT_PATHS)
}

fn restore(args: &[String]) -> Option<&'static Rule> {
    let opts: Vec<&str> = options(args).collect();
    let staged = opts.iter().any(|a| matches!(*a, "--staged" | "-S")) || has_short(args, 'S');
    let worktree = opts.iter().any(|a| matches!(*a, "--worktree" | "-W")) || has_short(args, 'W');
    // git-restore(1): without --staged the working tree is restored; with both, both are.
    (worktree || !staged).then_some(&RESTORE)
}

fn push(args: &[String]) -> Option<&'static Rule> {
    let opts: Vec<&str> = options(args).collect();
    let long = |name: &str| opts.iter().any(|a| *a == name || a.strip_prefix(name).is_some_and(|r| r.starts_with('=')));
    // Words that are not options (nor an option's value: `-o`, `--repo`, `--receive-pack`):
    // the remote, then refspecs.
    let mut positional = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if matches!(a.as_str(), "-o" | "--push-option" | "--repo" | "--receive-pack" | "--exec") {
            skip = true;
        } else if !a.starts_with('-') {
            positional.push(a.as_str());
        }
    }
    if has_short(args, 'n') || long("--dry-run") {
        return None;
    }
    let plus_refspec = positional.iter().skip(1).any(|r| r.starts_with('+'));
    if long("--force") || has_short(args, 'f') || long("--mirror") || plus_refspec {
        return Some(&PUSH_FORCE);
    }
    if long("--force-with-lease") || long("--force-if-includes") {
        return Some(&PUSH_LEASE);
    }
    let delete = long("--delete") || has_short(args, 'd') || positional.iter().skip(1).any(|r| r.starts_with(':') && r.len() > 1);
    delete.then_some(&PUSH_DELETE)
}

fn branch(args: &[String]) -> Option<&'static Rule> {
    let opts: Vec<&str> = options(args).collect();
    let delete = opts.iter().any(|a| *a == "--delete") || has_short(args, 'd') || has_short(args, 'D');
    let force = has_short(args, 'D') || opts.iter().any(|a| *a == "--force") || has_short(args, 'f');
    (delete && force).then_some(&BRANCH_FORCE_DELETE)
}

fn stash(args: &[String]) -> Option<&'static Rule> {
    match args.first().map(String::as_str) {
        Some("clear") => Some(&STASH_CLEAR),
        Some("drop") => Some(&STASH_DROP),
        _ => None,
    }
}
