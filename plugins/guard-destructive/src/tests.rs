use super::*;

/// The guard's table: (command, the reason it is blocked, or None for a pass). Destructive
/// commands, the evasions of issue #12, and harmless look-alikes.
const TABLE: &[(&str, Option<&str>)] = &[
    // Plain destructive commands.
    ("rm -rf /", Some("recursive delete of /")),
    ("rm -rf / --no-preserve-root", Some("rm --no-preserve-root")),
    ("sudo rm -fr /*", Some("recursive delete of /*")),
    ("rm -r -f ~", Some("recursive delete of ~")),
    ("rm -Rf $HOME", Some("recursive delete of $HOME")),
    ("rm -rf \"$HOME\"", Some("recursive delete of $HOME")),
    ("rm -rf ${HOME}/", Some("recursive delete of $HOME/")),
    ("cd /tmp && rm -rf /etc", Some("recursive delete of /etc")),
    ("echo hi; rm --recursive --force /usr/", Some("recursive delete of /usr/")),
    ("rm -rf -- /", Some("recursive delete of /")),
    ("rm -rf .", Some("recursive delete of .")),
    ("rm -rf *", Some("recursive delete of *")),
    ("mkfs.ext4 /dev/sda1", Some("mkfs.ext4 formats a filesystem")),
    ("mkfs -t ext4 /dev/sdb", Some("mkfs formats a filesystem")),
    ("dd if=/dev/zero of=/dev/sda bs=1M", Some("dd writes to the device /dev/sda")),
    (":(){ :|:& };:", Some("fork bomb")),
    ("bomb(){ bomb|bomb& };bomb", Some("fork bomb")),
    ("chmod -R 777 /", Some("recursive chmod of /")),
    ("sudo chown -R nobody /", Some("recursive chown of /")),
    // Evasions: redirections, wrappers, braces, find, xargs, nesting.
    ("rm -rf ~>/dev/null", Some("recursive delete of ~")),
    ("rm -rf ~ 2>&1 >/dev/null", Some("recursive delete of ~")),
    ("sudo -u root rm -rf /etc", Some("recursive delete of /etc")),
    ("sudo --user=root -E rm -rf /etc", Some("recursive delete of /etc")),
    ("doas -u root rm -rf /", Some("recursive delete of /")),
    ("timeout 9 rm -rf ~", Some("recursive delete of ~")),
    ("timeout -s KILL 9 rm -rf ~", Some("recursive delete of ~")),
    ("env -i rm -rf ~", Some("recursive delete of ~")),
    ("env FOO=1 BAR=2 rm -rf ~", Some("recursive delete of ~")),
    ("env -S 'rm -rf ~'", Some("recursive delete of ~")),
    ("FOO=1 rm -rf /", Some("recursive delete of /")),
    ("nice -n 10 rm -rf /", Some("recursive delete of /")),
    ("nohup rm -rf / &", Some("recursive delete of /")),
    ("time rm -rf ~", Some("recursive delete of ~")),
    ("command rm -rf ~", Some("recursive delete of ~")),
    ("exec rm -rf ~", Some("recursive delete of ~")),
    ("stdbuf -oL rm -rf ~", Some("recursive delete of ~")),
    ("ionice -c 3 rm -rf ~", Some("recursive delete of ~")),
    ("setsid rm -rf ~", Some("recursive delete of ~")),
    ("busybox rm -rf /", Some("recursive delete of /")),
    ("/bin/rm -rf /", Some("recursive delete of /")),
    ("sudo timeout 5 env -i nice rm -rf /", Some("recursive delete of /")),
    ("rm -rf {~,/tmp/x}", Some("recursive delete of ~")),
    ("rm -rf /tmp/{a,b} /{etc,x}", Some("recursive delete of /etc")),
    ("find ~ -delete", Some("find deletes everything under ~")),
    ("find / -exec rm -rf {} +", Some("find deletes everything under /")),
    ("xargs rm -rf < list", Some("recursive delete of paths read from input (xargs rm -r)")),
    ("cat list | xargs -0 -n 1 rm -rf", Some("recursive delete of paths read from input (xargs rm -r)")),
    ("bash -c 'rm -rf /'", Some("recursive delete of /")),
    ("sh -lc \"cd / && rm -rf ~\"", Some("recursive delete of ~")),
    ("bash -c \"bash -c 'rm -rf /'\"", Some("recursive delete of /")),
    ("eval rm -rf /", Some("recursive delete of /")),
    ("eval 'rm -rf ~'", Some("recursive delete of ~")),
    ("ls; rm -rf ~", Some("recursive delete of ~")),
    ("  rm -rf ~", Some("recursive delete of ~")),
    ("true || rm -rf ~", Some("recursive delete of ~")),
    ("echo $(rm -rf ~)", Some("recursive delete of ~")),
    ("echo `rm -rf ~`", Some("recursive delete of ~")),
    ("(rm -rf ~)", Some("recursive delete of ~")),
    ("{ rm -rf ~; }", Some("recursive delete of ~")),
    ("if true; then rm -rf ~; fi", Some("recursive delete of ~")),
    ("for d in a b; do rm -rf /; done", Some("recursive delete of /")),
    ("while true; do rm -rf ~; done", Some("recursive delete of ~")),
    ("cleanup() { rm -rf ~; }; cleanup", Some("recursive delete of ~")),
    ("diff <(rm -rf ~) x", Some("recursive delete of ~")),
    ("echo [REDACTED PRIVATE KEY]; rm -rf ~; #'", Some("recursive delete of ~")),
    ("rm -rf ~ 'unterminated", Some("the command could not be parsed (parse error at line 1, column 10: unexpected EOF while looking for matching `'') and runs rm")),
    // Harmless look-alikes.
    ("ls -la", None),
    ("rm -rf target", None),
    ("rm -rf ./build", None),
    ("rm -rf ~/project/build", None),
    ("rm file.txt", None),
    ("rm -f /tmp/x.lock", None),
    ("rm -r ~/.cache/pip/{a,b}", None),
    ("echo 'rm -rf /'", None),
    ("echo \"rm -rf /\"", None),
    ("echo rm -rf /", None),
    ("grep -r 'rm -rf ~' .", None),
    ("git commit -m 'rm -rf / was a bad idea'", None),
    ("echo -----BEGIN PRIVATE KEY----- '-----END K-----; rm -rf ~; #'", None),
    ("echo [REDACTED PRIVATE KEY] '-----END K-----; rm -rf ~; #'", None),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", None),
    ("dd if=x of=/dev/null", None),
    ("chmod 777 script.sh", None),
    ("chmod -R 755 ./dist", None),
    ("git reset origin/main", None),
    ("grep mkfs notes.txt", None),
    ("find . -name '*.o' -delete", None),
    ("find ~ -name '*.pyc' -delete", None),
    ("find / -name core", None),
    ("find . -type f | xargs rm -f", None),
    ("xargs -n1 echo < list", None),
    ("command -v rm", None),
    ("sudo apt-get install -y jq", None),
    ("timeout 5 cargo test", None),
    ("env -i PATH=/usr/bin ls", None),
    ("bash -c 'echo hi'", None),
    ("sh script.sh", None),
    ("echo 'unterminated", None),
    // Names assembled from pieces are read as bash would read them.
    ("r''m -rf /", Some("recursive delete of /")),
    ("\\rm -rf /", Some("recursive delete of /")),
    ("r{m,} -rf ~", Some("recursive delete of ~")),
    ("cargo test --workspace", None),
    ("npm run build && ls dist", None),
];

#[test]
fn the_table() {
    // SECURITY.md calls it the 100-command table.
    assert!(TABLE.len() >= 100, "{} commands", TABLE.len());
    let mut wrong = Vec::new();
    for (cmd, want) in TABLE {
        // The table names what each rule saw; the rule's name and advice follow it.
        let got = check(cmd, false).map(|r| r.split(" (rule ").next().unwrap_or_default().to_string());
        if got.as_deref() != *want {
            wrong.push(format!("{cmd:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), TABLE.len(), wrong.join("\n"));
}

#[test]
fn commands_as_argv_or_json_text_are_checked() {
    let block = |args: Value| Guard::handle(Event::pre_tool_use("bash", args), Context::default()).unwrap();
    assert_eq!(block(json!({"command": ["rm", "-rf", "/"]})).block_reason(), Some("destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name"));
    assert_eq!(block(json!({"command": ["bash", "-c", "rm -rf ~"]})).block_reason(), Some("destructive command blocked: recursive delete of ~ (rule fs.rm-root); instead: delete the specific paths you mean, by name"));
    assert_eq!(block(json!("{\"command\": \"rm -rf /\"}")).block_reason(), Some("destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name"));
    assert_eq!(block(json!({"script": "mkfs.ext4 /dev/sda"})).block_reason(), Some("destructive command blocked: mkfs.ext4 formats a filesystem (rule fs.mkfs); instead: nothing: run it yourself if you mean it"));
    assert_eq!(block(json!({"command": ["ls", "-la", "/"]})), Decision::pass());
    assert_eq!(block(json!("{\"command\": \"ls\"}")), Decision::pass());
}

#[test]
fn the_one_pass_needle_scan_agrees_with_contains() {
    let samples = ["", "ls -la", "r", "rm", "xrmx", "formatted", "git status", "cat notes.txt", "mkdi", "e", "exe", "exec ls", "pwd; shre", "shred f"];
    for s in samples {
        assert_eq!(mentions_any(s.as_bytes(), NEEDLES), NEEDLES.iter().any(|n| s.contains(n)), "{s:?}");
    }
    for n in NEEDLES {
        assert!(mentions_any(format!("ls {n}").as_bytes(), NEEDLES) && mentions_any(n.as_bytes(), NEEDLES), "{n}");
        assert!(!mentions_any(&n.as_bytes()[..n.len() - 1], NEEDLES) || NEEDLES.iter().any(|m| n[..n.len() - 1].contains(m)), "{n}: a prefix is not a match");
    }
}

/// Every corpus case through the whole guard — self-protection on, as shipped — as the
/// component decides it.
#[test]
fn corpus() {
    let cases = corpus::cases().unwrap();
    let mut wrong = Vec::new();
    let mut session = String::new();
    for case @ corpus::Case { file, line, expect: want, rule, command, cwd, packs, .. } in &cases {
        // Natively the SDK's state is one map: a new session starts it empty.
        if case.session_id() != session {
            hookhost_sdk::state::clear();
            session = case.session_id();
        }
        let settings = packs.as_ref().map_or(json!({}), |packs| json!({ "packs": packs }));
        let (tool, arguments) = case.call().unwrap();
        let ctx = Context { settings, cwd: cwd.map(str::to_string), ..Context::default() };
        // A `ran` case is the call's result: the guard sees it and passes.
        let event = match &case.result {
            Some(output) => Event::post_tool_use(tool, arguments, json!(output)),
            None => Event::pre_tool_use(tool, arguments),
        };
        let got = match Guard::handle(event, ctx).unwrap().verdict {
            hookhost_sdk::Verdict::Block { reason, .. } => Some((Verdict::Block, reason.unwrap_or_default())),
            hookhost_sdk::Verdict::Ask(reason) => Some((Verdict::Ask, reason.unwrap_or_default())),
            _ => None,
        };
        let ok = match (want, &got) {
            (None, None) => true,
            (Some(v), Some((verdict, reason))) => verdict == v && reason.contains(&format!("(rule {rule})")),
            _ => false,
        };
        if !ok {
            wrong.push(format!("{file}:{line}: {command:?}: want {want:?} by {rule}, got {got:?}"));
        }
    }
    let decided: Vec<&corpus::Case> = cases.iter().filter(|c| c.result.is_none()).collect();
    let harmless = decided.iter().filter(|c| c.expect.is_none()).count();
    assert!(wrong.is_empty(), "{} of {} corpus cases wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    // SECURITY.md and CONFIG.md say 48%: a corpus drifting towards only destructive cases
    // (which a guard blocking everything would pass) fails here.
    assert!(harmless * 100 >= decided.len() * 47, "48% of the corpus is harmless look-alikes, the docs say: {harmless} of {}", decided.len());
}

#[test]
fn every_rule_is_in_the_corpus() {
    let cases = corpus::cases().unwrap();
    // strict_rm and loop_after are settings the corpus (the default policy, pre_tool_use calls
    // alone) leaves off: their own tests have them (the loop rule's: remember/tests.rs).
    for rule in git::RULES.iter().chain(fs::RULES).chain(interp::RULES).chain(guard::RULES).chain(packs::RULES).chain(protect::RULES).chain(taint::RULES).filter(|r| r.name != fs::STRICT_RM.name && r.name != guard::LOOP.name) {
        assert!(cases.iter().any(|c| c.rule == rule.name), "no corpus case for {}", rule.name);
        assert!(!rule.what.is_empty() && !rule.instead.is_empty(), "{}", rule.name);
    }
    for rule in git::RULES {
        assert!(rule.what.starts_with("git "), "{}", rule.name);
    }
}

#[test]
fn arguments_too_deep_to_read_are_asked_about() {
    let deep = |n: usize| Value::String(format!("{{\"command\": \"git reset --hard\", \"x\": {}{}}}", "[".repeat(n), "]".repeat(n)));
    let policy = Policy::default();
    assert_eq!(check_call(&deep(100), &policy).map(|f| f.verdict), Some(Verdict::Block), "read: git.reset-hard");
    let f = check_call(&deep(200), &policy).expect("not a pass");
    assert_eq!(f.verdict, Verdict::Ask);
    assert!(f.reason.starts_with("the tool call's arguments nest deeper than the guard reads (recursion limit exceeded"), "{}", f.reason);
}

#[test]
fn block_outranks_ask_and_ask_is_an_ask() {
    let f = check_line("git stash drop; git reset --hard", &Policy::default()).unwrap();
    assert_eq!(f.verdict, Verdict::Block, "{f:?}");
    let f = check_line("git stash drop; ls", &Policy::default()).unwrap();
    assert_eq!(f.verdict, Verdict::Ask);
    let d = Guard::handle(Event::pre_tool_use("bash", json!({"command": "git push --force-with-lease"})), Context::default()).unwrap();
    assert_eq!(
        d,
        Decision::ask("destructive command needs confirmation: git push --force-with-lease still rewrites the remote branch's history (rule git.push-force-with-lease); instead: push to a branch of your own, or merge instead of rebasing shared history")
            .with_user_message("That command would discard work: run it only if you mean to.")
    );
    let d = Guard::handle(Event::pre_tool_use("bash", json!({"command": "git push -f"})), Context::default()).unwrap();
    assert_eq!(d.block_reason(), Some("destructive command blocked: git push --force (-f, +refspec, --mirror) overwrites the remote branch and can drop commits others pushed (rule git.push-force); instead: `git push --force-with-lease`, which refuses when the remote moved"));
}

#[test]
fn packs_and_allow() {
    let ctx = |settings: Value| Context { settings, ..Context::default() };
    let handle = |cmd: &str, settings: Value| Guard::handle(Event::pre_tool_use("bash", json!({"command": cmd})), ctx(settings)).unwrap();
    // Allowed commands pass, wrapped or not; others are still checked.
    let allow = json!({"allow": ["git push --force origin my-*", "git reset --hard"]});
    assert_eq!(handle("git push --force origin my-branch", allow.clone()), Decision::pass());
    assert_eq!(handle("sudo git push --force origin my-branch", allow.clone()), Decision::pass());
    assert_eq!(handle("git reset --hard", allow.clone()), Decision::pass());
    assert!(handle("git reset --hard HEAD~1", allow.clone()).block_reason().is_some(), "an exact entry allows only that command");
    assert!(handle("git push --force origin main", allow.clone()).block_reason().is_some());
    assert!(handle("rm -rf /", allow).block_reason().is_some());
    // No core pack: nothing of it is checked (self-protection is a setting of its own).
    for packs in [json!([]), json!(["core"]), json!(["all"])] {
        let on = packs != json!([]);
        assert_eq!(handle("rm -rf /", json!({"packs": packs})).block_reason().is_some(), on, "{packs}");
        assert_eq!(handle("git clean -fdx", json!({"packs": packs})).block_reason().is_some(), on, "{packs}");
    }
    assert!(handle("rm -rf .claude", json!({"packs": []})).block_reason().is_some(), "self-protection stays on");
    // Bad settings name the field and the fix.
    assert_eq!(Guard::validate_settings(&json!({"packs": ["core", "databse"]})).unwrap_err(), "unknown pack \"databse\" in settings.packs; the packs are core, database, containers, kubernetes, cloud, infrastructure, storage, backup, platform, secrets, taint (or \"all\": every one but taint)");
    assert_eq!(Guard::validate_settings(&json!({"packs": "core"})).unwrap_err(), "settings.packs must be a list of strings");
    assert_eq!(Guard::validate_settings(&json!({"allow": ["ls", 3]})).unwrap_err(), "settings.allow must be a list of strings");
    assert_eq!(Guard::validate_settings(&json!({"allow": ["ls", "*"]})).unwrap_err(), "settings.allow[1] would allow every command; name the commands to allow (e.g. \"git push --force origin my-branch\")");
}

#[test]
fn strict_rm_blocks_every_forced_recursive_rm() {
    assert_eq!(check("rm -rf target", true).as_deref(), Some("rm -rf is not allowed (rule fs.strict-rm); instead: delete files by name, without -rf"));
    assert_eq!(check("rm -r target", true), None);
}

#[test]
fn hook_blocks_with_reason_and_user_message() {
    let d = Guard::handle(Event::pre_tool_use("bash", json!({"command": "rm -rf /"})), Context::default()).unwrap();
    assert_eq!(d.block_reason(), Some("destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name"));
    assert_eq!(d, Decision::block("destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name").with_user_message("That command is blocked by policy."));
    let ok = Guard::handle(Event::pre_tool_use("bash", json!({"cmd": "ls -la"})), Context::default()).unwrap();
    assert_eq!(ok, Decision::pass());
}

#[test]
fn settings_are_checked() {
    assert!(Guard::validate_settings(&json!({"strict_rm": true, "user_message": "no"})).is_ok());
    assert_eq!(Guard::validate_settings(&json!({"strict": true})).unwrap_err(), "unknown setting \"strict\"; known settings are packs, allow, strict_rm, protect_hooks, remember, loop_after, user_message");
    assert_eq!(Guard::validate_settings(&json!({"strict_rm": "yes"})).unwrap_err(), "settings.strict_rm must be true or false");
}
