use super::*;

fn cmds(s: &str) -> Vec<Vec<String>> {
    commands(s).unwrap()
}

#[test]
fn finds_every_simple_command() {
    assert_eq!(cmds("a b; c 'd; e' && f\"g h\""), vec![vec!["a", "b"], vec!["c", "d; e"], vec!["fg h"]]);
    assert_eq!(cmds("x|y\nz"), vec![vec!["x"], vec!["y"], vec!["z"]]);
    assert_eq!(cmds("FOO=1 rm -rf b >/dev/null 2>&1"), vec![vec!["rm", "-rf", "b"]]);
    assert_eq!(cmds("echo $(rm -rf b)"), vec![vec!["rm", "-rf", "b"], vec!["echo", "$(…)"]]);
    assert_eq!(cmds("if true; then (cd /; { rm -rf x; }); fi"), vec![vec!["true"], vec!["cd", "/"], vec!["rm", "-rf", "x"]]);
}

#[test]
fn collects_the_files_redirections_write() {
    let writes = |s: &str| parse(s).unwrap().writes;
    assert_eq!(writes("echo x > a; echo y >> 'b c' 2>&1; cat <in >| d &> e"), vec!["a", "b c", "d", "e"]);
    assert_eq!(writes("{ echo x; } > f; (echo y) >> g; exec 3<> h"), vec!["f", "g", "h"]);
    assert_eq!(writes("cat < in; echo $(date > inner)"), vec!["inner"], "reads are not writes; substitutions count");
    assert_eq!(writes("echo > ~/{a,b}"), vec!["~/a", "~/b"]);
}

#[test]
fn here_documents_and_strings_are_what_their_command_reads() {
    let s = parse("ls; python3 <<'EOF'\nimport os\nos.system('rm -rf {a,b}')\nEOF\nbash <<< 'rm -rf x'").unwrap();
    assert_eq!(s.commands, vec![vec!["ls"], vec!["python3"], vec!["bash"]]);
    assert_eq!(s.inputs.len(), 2, "{:?}", s.inputs);
    assert_eq!(s.inputs[0].0, 1);
    assert!(s.inputs[0].1.contains("os.system('rm -rf {a,b}')"), "{:?}", s.inputs);
    assert_eq!(s.inputs[1], (2, "rm -rf x".to_string()));
}

#[test]
fn a_simple_commands_own_output_files_are_by_its_index() {
    let s = parse("mkdir -p d && cat > d/x.sh <<'EOF'\nrm -rf ~\nEOF\necho hi >> log 2>&1; { echo y; } > g").unwrap();
    assert_eq!(s.outputs, vec![(1, "d/x.sh".to_string()), (2, "log".to_string())], "the group's file is not one command's");
    assert_eq!(s.inputs, vec![(1, "rm -rf ~\n".to_string())]);
    assert_eq!(s.writes, vec!["d/x.sh", "log", "g"]);
}

#[test]
fn an_unquoted_ifs_splits_words_as_bash_does() {
    assert_eq!(cmds("rm${IFS}-rf${IFS}/"), vec![vec!["rm", "-rf", "/"]]);
    assert_eq!(cmds("git$IFS'reset' --hard"), vec![vec!["git", "reset", "--hard"]]);
    assert_eq!(cmds("echo \"a${IFS}b\" a\"$IFS\"b"), vec![vec!["echo", "a$IFSb", "a$IFSb"]], "quoted: one word");
}

#[test]
fn substitutions_inside_expansions_the_parser_keeps_as_text_are_read() {
    // Each of these runs `git reset --hard` in bash (checked with bash 5.2).
    for line in [
        "(( $(git reset --hard) ))",
        "echo $(( $(git reset --hard) + 1 ))",
        "x=$(( `git reset --hard` ))",
        "for ((i=$(git reset --hard); i<3; i++)); do :; done",
        "echo ${x:-$(git reset --hard)}",
        "echo \"${x:-$(git reset --hard)}\"",
        ": ${x:=`git reset --hard`}",
        "echo ${x:?$(git reset --hard)}",
        "a[$(git reset --hard)]=1",
        "echo ${a[$(git reset --hard)]}",
        "echo ${x:$(git reset --hard):1}",
        "echo $[ $(git reset --hard) ]",
        "case x in $(git reset --hard)) ;; esac",
        "select x in $(git reset --hard); do break; done",
        "echo $(( $(( $(git reset --hard) )) ))",
        "echo ${x:-${y:-$(git reset --hard)}}",
    ] {
        assert!(cmds(line).contains(&vec!["git".to_string(), "reset".into(), "--hard".into()]), "{line}: {:?}", cmds(line));
    }
    // Arithmetic and operands with no substitution add nothing; quoted text stays text.
    assert_eq!(cmds("(( i++ )); echo $(( a<(b+1) )) ${x:-default} ${x:-'$(rm -rf /)'}"), vec![vec!["echo", "$(…)", "$x", "$x"]]);
    // Too deep, or not readable: an error, never "no commands".
    let deep = format!("echo {}$(rm -rf /){}", "$(( ".repeat(6), " ))".repeat(6));
    assert_eq!(commands(&deep), Err("command substitutions nested too deep inside expansions".to_string()));
    assert!(commands("echo ${x:-$(}").is_err());
}

#[test]
fn plain_lines_read_without_the_parser_read_as_the_parser_reads_them() {
    for line in [
        "git status --short",
        "rm -rf target/debug",
        "  sudo rm -rf --no-preserve-root /  ",
        "dd if=/dev/zero of=/dev/sda bs=1M",
        "mkfs.ext4 /dev/sdb1",
        "kubectl -n prod delete deploy/web --grace-period=0",
        "git push origin +main:main",
        "curl -fsSL https://example.com/a.sh",
        "x",
    ] {
        let fast = plain(line).unwrap_or_else(|| panic!("{line:?} is plain"));
        let ast = Parser::with_limits(line, MAX_DEPTH, MAX_PARSER_OPS).parse().unwrap();
        let mut full = Script::default();
        walk_all(&ast.commands, &mut full);
        assert_eq!(vec![fast], full.commands, "{line:?}");
    }
    // Anything the shell would do more with goes to the parser.
    for line in [
        "", "  ", "FOO=1 rm -rf /", "time rm -rf /", "if true", "for x", "rm -rf ~", "rm -rf *", "rm -rf a?", "rm -rf [ab]", "ls # rm -rf /",
        "ls; rm", "ls | sh", "ls & rm", "ls > x", "echo $HOME", "echo `id`", "echo 'a'", "echo \"a\"", "rm\\ -rf", "rm -rf {a,b}", "ls\nrm -rf /", "! rm", "(rm)",
    ] {
        assert_eq!(plain(line), None, "{line:?}");
    }
}

#[test]
fn expands_unquoted_braces_only() {
    assert_eq!(cmds("rm -rf {~,/tmp/x} a{b,c{d,e}}f '{q,r}' {1..3} {}"), vec![vec!["rm", "-rf", "~", "/tmp/x", "abf", "acdf", "acef", "{q,r}", "{1..3}", "{}"]]);
    // 2^8 words and one more: past the cap the word is not read at all (issue #48: the cut
    // once dropped the `~`).
    let eight = "{a,b}".repeat(8);
    assert_eq!(cmds(&format!("echo {eight}")).len(), 1);
    assert_eq!(cmds(&format!("echo {eight}"))[0].len(), 257);
    assert_eq!(commands(&format!("rm -rf {{{eight}.txt,~}}")), Err("a brace expansion makes more than 256 words".to_string()));
    assert_eq!(commands(&format!("echo x > {{{eight},~}}")), Err("a brace expansion makes more than 256 words".to_string()));
    // Groups nested or chained past what a small stack recurses through: not read either.
    assert_eq!(commands(&format!("rm -rf {}", "{x,y}{p,q}/".repeat(40))), Err("a word holds more than 64 brace groups".to_string()));
    assert_eq!(commands(&format!("rm -rf {}~{}", "{a,".repeat(70), "}".repeat(70))), Err("a word holds more than 64 brace groups".to_string()));
}

#[test]
fn assignments_are_collected() {
    let s = parse("CODEX_HOME=/tmp/c codex; PID=$(pgrep hookhost); kill $PID; A=(1 2) true").unwrap();
    assert_eq!(s.assignments, ["CODEX_HOME=/tmp/c", "PID=$(…)", "A=(1 2)"]);
    assert!(s.commands.contains(&vec!["pgrep".to_string(), "hookhost".into()]));
}
