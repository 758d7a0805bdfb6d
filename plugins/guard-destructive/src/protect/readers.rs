//! What a program does with the files it names: the known readers, and the programs whose
//! options decide (`sed -i`, `tar -x`, `cp`, `git checkout`, `find -delete`).

use super::*;

/// Programs that only read the files they are given (`sed`, `sort`, `tar`, `git` and the others
/// whose options decide are judged by those options).
pub static READERS: &[&str] = &[
    "cat", "tac", "less", "more", "most", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "diff3", "sdiff", "colordiff", "delta", "difft", "cmp", "comm", "wc", "stat",
    "file", "ls", "dir", "tree", "exa", "eza", "du", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "bat", "batcat", "realpath",
    "readlink", "basename", "dirname", "test", "[", "[[", "echo", "printf", "pwd", "type", "which", "whereis", "nl", "od", "xxd", "hexdump", "strings", "column", "cut", "tr", "fold",
    "fmt", "paste", "join", "base64", "jq", "gron", "jless", "fx", "json_pp", "jsonlint", "true", "false", ":", "printenv", "id", "whoami", "date", "sleep", "cd", "pushd",
    "popd", "git-blame", "view", "glow", "open", "xdg-open", "code-insiders-read",
];

/// What a command does with the files it names.
pub(super) enum Reading {
    /// Reads them all.
    Everything,
    /// Reads them, but writes these (`sort -o FILE`, `tar -cf FILE`).
    Except(Vec<String>),
    /// A copy, move or link: the sources are read (removed, for a move), the destination
    /// written.
    Copy { sources: Vec<String>, dest: String, moves: bool },
    /// Not a known reader: every path it is given may change (`Access::Remove` for programs
    /// that delete what they are given; deleting hookhost's cache is allowed).
    Nothing(Access),
    /// Changes hook configuration whatever it is given: what it changes.
    Always(String),
}

/// How `prog args` treats the files it names.
pub(super) fn reads_only(prog: &str, args: &[String]) -> Reading {
    let opts = || args.iter().take_while(|a| *a != "--").filter(|a| a.starts_with('-') && a.len() > 1);
    // A short-option cluster holding `flag` before any letter that takes a value.
    let cluster_has = |flag: char, value_flags: &str| {
        opts().filter(|a| !a.starts_with("--")).any(|a| a[1..].chars().take_while(|c| !value_flags.contains(*c)).any(|c| c == flag) || a[1..].starts_with(flag))
    };
    let long_prefix = |name: &str| opts().any(|a| a.starts_with("--") && a.len() >= 5 && name.starts_with(a.split('=').next().unwrap_or(a)));
    match prog {
        p if READERS.contains(&p) => Reading::Everything,
        // sed(1) `-i[SUFFIX]` / `--in-place[=SUFFIX]` (or an unambiguous prefix of it) edits the
        // files; its `w FILE` command writes one (checked as code).
        "sed" | "gsed" => {
            if cluster_has('i', "efl") || long_prefix("--in-place") {
                return Reading::Nothing(Access::Change);
            }
            script_then_files(args)
        }
        // perl(1) `-i` (`-pi`, `-0pi`, `-i.bak`) edits in place.
        "perl" => {
            if cluster_has('i', "eEIMmlx") {
                return Reading::Nothing(Access::Change);
            }
            script_then_files(args)
        }
        // gawk `-i inplace` / `--include=inplace`.
        "awk" | "gawk" | "mawk" | "nawk" => {
            let inplace = args.windows(2).any(|w| (w[0] == "-i" || w[0] == "--include") && w[1].starts_with("inplace")) || args.iter().any(|a| a == "-iinplace" || a.starts_with("--include=inplace"));
            if inplace {
                return Reading::Nothing(Access::Change);
            }
            script_then_files(args)
        }
        "sort" | "iconv" => match option_value(args, &["-o", "--output"]) {
            Some(out) => Reading::Except(vec![out.to_string()]),
            None => Reading::Everything,
        },
        // uniq(1) `INPUT OUTPUT`.
        "uniq" => Reading::Except(args.iter().filter(|a| !a.starts_with('-')).skip(1).cloned().collect()),
        "yq" => {
            if cluster_has('i', "") || long_prefix("--inplace") {
                Reading::Nothing(Access::Change)
            } else {
                Reading::Everything
            }
        }
        "tar" | "bsdtar" | "gtar" => {
            let first = args.first().map_or("", String::as_str);
            let mode_letters = if first.starts_with('-') { "" } else { first };
            let mode = |c: char, long: &str| mode_letters.contains(c) || opts().any(|a| (!a.starts_with("--") && a[1..].contains(c)) || a == long);
            // The archive: `-f FILE`, `--file=FILE`, a cluster ending in `f` (`-cf FILE`), or the
            // old style's second word (`tar cf FILE`).
            let archive = option_value(args, &["--file"])
                .map(str::to_string)
                .or_else(|| args.windows(2).find(|w| w[0].starts_with('-') && !w[0].starts_with("--") && w[0].ends_with('f')).map(|w| w[1].clone()))
                .or_else(|| mode_letters.contains('f').then(|| args.get(1).cloned()).flatten());
            if mode('x', "--extract") || mode('x', "--get") {
                // Extracts into -C DIR (or the working directory): judged as a copy into it.
                let dest = option_value(args, &["-C", "--directory"]).unwrap_or(".").to_string();
                return Reading::Copy { sources: Vec::new(), dest, moves: false };
            }
            if mode('c', "--create") || mode('r', "--append") || mode('u', "--update") {
                return Reading::Except(archive.into_iter().collect());
            }
            Reading::Everything
        }
        "unzip" => Reading::Copy { sources: Vec::new(), dest: option_value(args, &["-d"]).unwrap_or(".").to_string(), moves: false },
        // zip(1) `-m` moves the files into the archive (deletes them).
        "zip" if args.iter().any(|a| a == "-m" || a == "--move" || (a.starts_with('-') && !a.starts_with("--") && a.contains('m'))) => Reading::Nothing(Access::Remove),
        "zip" => Reading::Except(args.iter().find(|a| !a.starts_with('-')).cloned().into_iter().collect()),
        "cp" | "install" | "ln" | "rsync" | "scp" | "mv" | "ditto" | "copy-item" | "move-item" => copy(prog, args),
        "git" => git(args),
        "hookhost" => {
            let sub = args.iter().find(|a| !a.starts_with('-')).map_or("", String::as_str);
            let reads = matches!(sub, "" | "run" | "replay" | "diff" | "check" | "test" | "wit" | "new" | "config" | "bundle" | "serve" | "load-test" | "bench" | "audit" | "help" | "registry" | "doctor" | "coverage" | "schema" | "version");
            if reads {
                Reading::Everything
            } else {
                // `hookhost trust`, `lock`, `update`, `key`, `install`: they change hooks.
                Reading::Always(format!("hook configuration (hookhost {sub})"))
            }
        }
        // Deleting, or changing the mode or owner of, a tree: what it holds goes with it.
        "rm" | "rmdir" | "unlink" | "shred" | "del" | "erase" | "rd" | "remove-item" | "trash" | "trash-put" | "gio" | "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => Reading::Nothing(Access::Remove),
        "find" => find(args),
        _ => Reading::Nothing(Access::Change),
    }
}

/// sed / awk / perl without in-place editing: the script (the first operand, or `-e` /
/// `-f`'s) is code whose named files it may write; the other operands are read.
pub(super) fn script_then_files(args: &[String]) -> Reading {
    let given = args.iter().any(|a| matches!(a.as_str(), "-e" | "-f" | "-E" | "--expression" | "--file") || a.starts_with("--expression="));
    let code: Vec<String> = if given {
        args.windows(2).filter(|w| matches!(w[0].as_str(), "-e" | "-E" | "--expression")).map(|w| w[1].clone()).collect()
    } else {
        args.iter().find(|a| !a.starts_with('-')).cloned().into_iter().collect()
    };
    if code.is_empty() {
        Reading::Everything
    } else {
        // Any file the code names is as good as written (`w .claude/settings.json`).
        let named: Vec<String> = code
            .iter()
            .flat_map(|c| c.split(|ch: char| ch.is_whitespace() || matches!(ch, '\'' | '"' | '(' | ')' | ',' | ';' | '>' | '<' | '{' | '}')).map(str::to_string).collect::<Vec<_>>())
            .filter(|t| t.contains('/') || t.contains('.'))
            .collect();
        Reading::Except(named)
    }
}

/// `cp` / `install` / `ln` / `rsync` / `scp` / `mv`: the destination is `-t DIR` or the last
/// operand.
pub(super) fn copy(prog: &str, args: &[String]) -> Reading {
    let value_options: &[&str] = match prog {
        "install" => &["-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix"],
        "rsync" => &["-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--files-from", "--exclude-from", "--include-from", "--chmod", "--backup-dir", "--suffix", "--log-file", "--temp-dir", "-T", "--compare-dest", "--copy-dest", "--link-dest", "--partial-dir", "--rsync-path", "--password-file"],
        "scp" => &["-i", "-P", "-o", "-F", "-c", "-l", "-S", "-J"],
        "cp" | "mv" | "ln" => &["-S", "--suffix"],
        _ => &[],
    };
    let mut operands = Vec::new();
    let mut target = None;
    let mut it = args.iter();
    let mut done = false;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" if !done => done = true,
            "-t" | "--target-directory" | "-Destination" if !done => target = it.next().cloned(),
            t if !done && t.starts_with("--target-directory=") => target = Some(t["--target-directory=".len()..].to_string()),
            o if !done && value_options.contains(&o) => {
                it.next();
            }
            o if !done && o.starts_with('-') && o.len() > 1 => {}
            operand => operands.push(operand.to_string()),
        }
    }
    let moves = matches!(prog, "mv" | "move-item") || (prog == "rsync" && args.iter().any(|a| a == "--remove-source-files"));
    let dest = match target {
        Some(t) => t,
        None => match operands.pop() {
            Some(d) if !operands.is_empty() => d,
            // `ln -s TARGET` makes a link in the working directory; one operand copies nothing.
            Some(d) if prog == "ln" => {
                let name = d.trim_end_matches('/').rsplit('/').next().unwrap_or(&d).to_string();
                return Reading::Copy { sources: Vec::new(), dest: name, moves: false };
            }
            _ => return Reading::Everything,
        },
    };
    // A link's target is read only through the link: `ln -s /dev/null .claude/settings.json`
    // is judged by where the link goes.
    Reading::Copy { sources: operands, dest, moves }
}

/// git(1): the subcommands that change the working tree by path. Everything else reads.
pub(super) fn git(args: &[String]) -> Reading {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if matches!(args[i].as_str(), "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env") { 2 } else { 1 };
    }
    let Some((sub, rest)) = args.get(i..).and_then(|a| a.split_first()) else { return Reading::Everything };
    let outputs = || option_value(rest, &["-o", "--output", "--output-directory"]).map(str::to_string).into_iter().collect::<Vec<_>>();
    match sub.as_str() {
        // `git rm --cached` keeps the file.
        "rm" if rest.iter().any(|a| a == "--cached") => Reading::Everything,
        "rm" | "clean" => Reading::Nothing(Access::Remove),
        "checkout" | "restore" | "mv" | "checkout-index" | "merge-file" | "apply" | "am" => Reading::Nothing(Access::Change),
        // `git stash push -- FILE` puts the file back as it was committed.
        "stash" => {
            let pathspec: Vec<String> = rest.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
            if pathspec.is_empty() {
                let paths = rest.iter().filter(|a| !a.starts_with('-')).skip(1).cloned();
                Reading::Except(if matches!(rest.first().map(String::as_str), Some("push" | "save")) { paths.collect() } else { Vec::new() })
            } else {
                Reading::Except(pathspec)
            }
        }
        "format-patch" | "archive" | "diff" | "log" | "show" | "bundle" => Reading::Except(outputs()),
        "config" => Reading::Except(option_value(rest, &["--file", "-f"]).map(str::to_string).into_iter().collect()),
        _ => Reading::Everything,
    }
}

/// find(1): a find that deletes or runs a program on what it finds changes what its name
/// filters can match (`find . -name settings.json -delete`). Reading finds (`-print`, `-ls`,
/// `-exec cat {} ;`) read.
pub(super) fn find(args: &[String]) -> Reading {
    let writes = args.iter().any(|a| a == "-delete")
        || crate::fs::find_execs(args).any(|argv| argv.first().is_some_and(|p| !READERS.contains(&program(p).as_str())));
    let out: Vec<String> = args.windows(2).filter(|w| matches!(w[0].as_str(), "-fprint" | "-fprint0" | "-fprintf" | "-fls")).map(|w| w[1].clone()).collect();
    if writes {
        // `-name '*'` filters nothing (the destructive rules judge such a find).
        let filters: Vec<&str> = args.windows(2).filter(|w| matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename") && !pure_wildcard(&w[1])).map(|w| w[1].as_str()).collect();
        // A filter that can match a hook file's name, or none at all under a hook directory.
        let hits = filters.iter().find(|f| {
            let f = f.to_ascii_lowercase();
            NAMES.iter().any(|n| wildcard(&f, n)) || FILES.iter().chain(DIRS).any(|p| wildcard(&f, &format!("./{p}")) || wildcard(&f, p))
        });
        if let Some(f) = hits {
            return Reading::Always(format!("the files its filter {f} matches"));
        }
        if filters.is_empty() {
            // No filter: every file under the starting points (hook files among them, when
            // they are or hold a hook directory).
            return Reading::Nothing(Access::Remove);
        }
    }
    Reading::Except(out)
}
