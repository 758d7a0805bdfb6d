use super::*;

fn args_of(lang: Lang, code: &str) -> Vec<(String, Vec<Arg>)> {
    scan(lang, code).into_iter().map(|c| (c.name, c.args)).collect()
}

#[test]
fn calls_and_their_literal_arguments_are_read() {
    let lit = |s: &str| Arg::Literal(s.into());
    assert_eq!(args_of(Lang::Python, "import os; os.system('rm -rf /')"), [("os.system".into(), vec![lit("rm -rf /")])]);
    assert_eq!(
        args_of(Lang::Python, "import subprocess\nsubprocess.run(['rm', '-rf', '/'], check=True)"),
        [("subprocess.run".into(), vec![Arg::List(vec!["rm".into(), "-rf".into(), "/".into()]), Arg::Other("check=True".into())])]
    );
    assert_eq!(args_of(Lang::Python, "os.system(f'rm -rf {d}')"), [("os.system".into(), vec![Arg::Dynamic])]);
    assert_eq!(args_of(Lang::Python, "os.system('rm -rf ' + d)"), [("os.system".into(), vec![Arg::Dynamic])]);
    assert_eq!(args_of(Lang::Python, "os.system(cmd)"), [("os.system".into(), vec![Arg::Dynamic])]);
    assert_eq!(args_of(Lang::Python, r#"print("os.system('rm -rf /')")"#), [("print".into(), vec![lit("os.system('rm -rf /')")])]);
    assert_eq!(args_of(Lang::Node, "require('child_process').execSync(`rm -rf ${d}`)")[1], ("execSync".into(), vec![Arg::Dynamic]));
    assert_eq!(args_of(Lang::Perl, "system 'rm -rf /';"), [("system".into(), vec![lit("rm -rf /")])]);
    assert_eq!(args_of(Lang::Perl, "print qx{rm -rf ~};")[1], ("`".into(), vec![lit("rm -rf ~")]));
    assert_eq!(args_of(Lang::Python, "print(subprocess.check_output('ls', shell=True))")[1], ("subprocess.check_output".into(), vec![lit("ls"), Arg::Other("shell=True".into())]));
    assert_eq!(args_of(Lang::Ruby, "puts %x(rm -rf ~)")[1], ("`".into(), vec![lit("rm -rf ~")]));
    assert_eq!(args_of(Lang::Ruby, "`rm -rf #{d}`"), [("`".into(), vec![Arg::Dynamic])]);
}

#[test]
fn odd_code_never_panics() {
    let policy = Policy::default();
    let samples = ["print('…')", "os.system('é", "'\\", "\"", "`", "qx{", "%x(", "system(", "f'{", "r'\\'", "\"\"\"", "a(b(c(", "[[[", "]]]", ")))", "日本語(\"rm -rf /\")", "x = `ls`; y = '…'; os.system(\"ü\")"];
    for lang in [Lang::Python, Lang::Node, Lang::Perl, Lang::Ruby, Lang::Php] {
        for s in samples {
            for cut in 0..=s.len() {
                if s.is_char_boundary(cut) {
                    let _ = check_code(lang, &s[..cut], &policy, 0, &crate::ShellRules);
                }
            }
        }
    }
    assert!(check_code(Lang::Python, "print('…'); os.system('rm -rf /')", &policy, 0, &crate::ShellRules).is_some(), "a non-ASCII string before the call");
}

#[test]
fn interpreters_say_where_their_program_comes_from() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(matches!(source(Lang::Python, &s(&["-c", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Python, &s(&["-Sc", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Python, &s(&["-W", "ignore", "-c", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Python, &s(&["script.py"])), Source::File(_)));
    assert!(matches!(source(Lang::Python, &s(&["-m", "http.server"])), Source::File(_)));
    assert!(matches!(source(Lang::Python, &s(&[])), Source::Stdin));
    assert!(matches!(source(Lang::Python, &s(&["-"])), Source::Stdin));
    assert!(matches!(source(Lang::Node, &s(&["-e", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Node, &s(&["eval", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Perl, &s(&["-ne", "x", "f"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Perl, &s(&["-MFile::Path", "-e", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Ruby, &s(&["-rfileutils", "-e", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Php, &s(&["-r", "x"])), Source::Inline("x")));
    assert!(matches!(source(Lang::Shell, &s(&["-s"])), Source::Stdin));
    assert!(matches!(source(Lang::Shell, &s(&["-x", "deploy.sh"])), Source::File(_)));
    assert!(matches!(source(Lang::Python, &s(&["--version"])), Source::File(_)));
    assert!(matches!(source(Lang::Node, &s(&["-v"])), Source::File(_)));
    assert_eq!(lang_of("python3.11"), Some(Lang::Python));
    assert_eq!(lang_of("pythonista"), None);
}
