//! Bundles end to end through the `hookhost` binary: pack, sign (with hookhost and with the real
//! `minisign`), push to and pull from a local directory registry and a real OCI registry
//! (Debian's `docker-registry`, started on loopback), run the pulled hooks, and every bad input
//! refused with its own message, nothing run and nothing cached.


use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use hookhost_tests::have;

/// A scratch workspace: its own cache, default local registry and Docker config, so tests do
/// not share state or read the user's.
struct Work {
    dir: tempfile::TempDir,
    /// What `warm` put in the cache.
    warm: Vec<std::ffi::OsString>,
}

impl Work {
    fn new() -> Work {
        let w = Work { dir: tempfile::tempdir().unwrap(), warm: Vec::new() };
        std::fs::create_dir_all(w.path("docker")).unwrap();
        w
    }

    /// The cache holds the built-ins' compiled code already (`hookhost_tests::warm_cache`), for
    /// tests that run the bash adapter but do not test compiling.
    fn warm(mut self) -> Work {
        self.warm = hookhost_tests::warm_cache(&self.path("cache"));
        self
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn cmd(&self, program: &str, args: &[&str]) -> Output {
        crate::common::bin(program)
            .args(args)
            .current_dir(self.dir.path())
            .env("HOOKHOST_CACHE_DIR", self.path("cache"))
            .env("HOOKHOST_REGISTRY", self.path("default-registry"))
            .env("DOCKER_CONFIG", self.path("docker"))
            .env_remove("HOOKHOST_KEY_PASSWORD")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
    }

    fn hookhost(&self, args: &[&str]) -> Output {
        self.cmd(env!("CARGO_BIN_EXE_hookhost"), args)
    }

    /// Run hookhost and require success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.hookhost(args);
        assert!(out.status.success(), "hookhost {args:?} failed: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// Run hookhost, require exit code `code`; returns stderr.
    fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.hookhost(args);
        assert_eq!(out.status.code(), Some(code), "hookhost {args:?}: stdout {} stderr {}", text(&out.stdout), text(&out.stderr));
        assert!(out.stdout.is_empty(), "nothing runs on a refused load, but stdout was {}", text(&out.stdout));
        text(&out.stderr)
    }

    /// A bundle source directory with the built-in guard as `guard.wasm`.
    fn source(&self, rel: &str, name: &str, version: &str) -> PathBuf {
        self.write(&format!("{rel}/guard.wasm"), hookhost::builtin_plugin("guard-destructive").unwrap());
        self.write(
            &format!("{rel}/bundle.toml"),
            format!(
                "name = \"{name}\"\nversion = \"{version}\"\ndescription = \"blocks destructive commands\"\n\n[[plugins]]\nfile = \"guard.wasm\"\n\n[[hooks]]\nid = \"no-rm\"\nevent = \"pre_tool_use\"\nmatcher = {{ tool_name = \"bash\" }}\nexecutor = {{ plugin = \"guard.wasm\" }}\non_error = \"block\"\n"
            ),
        );
        self.path(rel)
    }

    /// Pack `name@version` to `{file}`.
    fn pack(&self, name: &str, version: &str, file: &str) {
        let src = self.source(&format!("src-{file}"), name, version);
        self.ok(&["bundle", "pack", src.to_str().unwrap(), "-o", file]);
    }

    fn key(&self, prefix: &str) -> String {
        let out = self.ok(&["key", "generate", "-o", prefix]);
        out.split_whitespace().nth(1).unwrap().trim_end_matches(':').to_string()
    }

    /// Nothing was cached: no bundle blobs and no compiled plugins.
    fn assert_nothing_cached(&self) {
        let cache = self.path("cache");
        let entries: Vec<_> = std::fs::read_dir(&cache).map(|d| d.flatten().map(|e| e.file_name()).filter(|n| !self.warm.contains(n)).collect()).unwrap_or_default();
        assert!(entries.is_empty(), "the cache holds {entries:?} after a refused bundle");
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim_end().to_string()
}

const RM: &str = r#"{"event":"pre_tool_use","tool_name":"bash","tool_input":{"command":"rm -rf /"}}"#;

fn trust_toml(keyfile: &str, allow: &str) -> String {
    format!("[[trust.keys]]\npublic_key_file = \"{keyfile}\"\nallow = [\"{allow}\"]\n")
}

fn run_json(w: &Work, config: &str) -> serde_json::Value {
    w.write("ev.json", RM);
    serde_json::from_str(&w.ok(&["run", "--config", config, "--event", "ev.json"])).unwrap()
}

#[test]
fn pack_is_deterministic_and_inspect_shows_what_to_sign() {
    let w = Work::new();
    let a = w.source("a", "acme/guard", "1.2.0");
    w.ok(&["bundle", "pack", a.to_str().unwrap(), "-o", "a.hhb"]);
    // The same contents written later (other mtimes), packed again.
    std::thread::sleep(Duration::from_millis(1100));
    let b = w.source("b", "acme/guard", "1.2.0");
    let out = w.ok(&["bundle", "pack", b.to_str().unwrap()]);
    assert!(out.starts_with("packed acme/guard@1.2.0 → acme-guard-1.2.0.hhb"), "{out}");
    assert_eq!(std::fs::read(w.path("a.hhb")).unwrap(), std::fs::read(w.path("acme-guard-1.2.0.hhb")).unwrap());
    let v: serde_json::Value = serde_json::from_str(&w.ok(&["bundle", "inspect", "--json", "a.hhb"])).unwrap();
    assert_eq!(v["manifest"]["name"], "acme/guard");
    assert_eq!(v["manifest"]["plugins"][0]["file"], "guard.wasm");
    assert_eq!(v["manifest"]["plugins"][0]["size"], hookhost::builtin_plugin("guard-destructive").unwrap().len());
    assert_eq!(v["manifest"]["hooks"][0]["id"], "no-rm");
    let digest = v["manifest_digest"].as_str().unwrap();
    assert_eq!(v["trusted_comment"], format!("hookhost-bundle acme/guard@1.2.0 {digest}"));
    let manifest = w.hookhost(&["bundle", "manifest", "a.hhb"]).stdout;
    assert_eq!(hookhost_types::Digest::of(&manifest).to_string(), digest);
    // Unpacking writes the files back.
    w.ok(&["bundle", "unpack", "a.hhb", "out"]);
    assert_eq!(std::fs::read(w.path("out/guard.wasm")).unwrap(), hookhost::builtin_plugin("guard-destructive").unwrap());
}

#[test]
fn key_generate_writes_a_private_secret_and_never_prints_it() {
    let w = Work::new();
    let out = w.hookhost(&["key", "generate", "-o", "team"]);
    assert!(out.status.success());
    let secret = std::fs::read_to_string(w.path("team.key")).unwrap();
    let secret_line = secret.lines().nth(1).unwrap();
    assert!(secret_line.len() > 100);
    let printed = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!printed.contains(secret_line) && !printed.contains(&secret_line[..40]), "{printed}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(w.path("team.key")).unwrap().permissions().mode() & 0o777, 0o600);
    let err = w.fails(&["key", "generate", "-o", "team"], 2);
    assert!(err.contains("team.key exists; pass --force to replace it"), "{err}");
    assert_eq!(std::fs::read_to_string(w.path("team.key")).unwrap(), secret, "the existing key is untouched");
}

#[test]
fn signatures_interoperate_with_minisign_both_ways() {
    if !have("minisign") {
        return;
    }
    let w = Work::new();
    w.pack("acme/guard", "1.0.0", "g.hhb");
    let manifest = w.hookhost(&["bundle", "manifest", "g.hhb"]).stdout;
    w.write("manifest.json", &manifest);
    // hookhost signs, minisign verifies.
    let id = w.key("hh");
    w.ok(&["bundle", "sign", "--key", "hh.key", "g.hhb"]);
    let sig = format!("g.hhb.{id}.minisig");
    let out = w.cmd("minisign", &["-V", "-p", "hh.pub", "-m", "manifest.json", "-x", &sig]);
    assert!(out.status.success(), "minisign -V: {}{}", text(&out.stdout), text(&out.stderr));
    let comment: serde_json::Value = serde_json::from_str(&w.ok(&["bundle", "inspect", "--json", "g.hhb"])).unwrap();
    let comment = comment["trusted_comment"].as_str().unwrap().to_string();
    assert!(text(&out.stdout).contains(&format!("Trusted comment: {comment}")), "{}", text(&out.stdout));
    // minisign signs (its own key, the trusted comment hookhost asks for), hookhost verifies.
    let out = w.cmd("minisign", &["-G", "-W", "-p", "ms.pub", "-s", "ms.key"]);
    assert!(out.status.success(), "minisign -G: {}", text(&out.stderr));
    let out = w.cmd("minisign", &["-S", "-s", "ms.key", "-m", "manifest.json", "-x", "ms.minisig", "-t", &comment]);
    assert!(out.status.success(), "minisign -S: {}", text(&out.stderr));
    let ok = w.ok(&["bundle", "verify", "g.hhb", "--key", "ms.pub", "--sig", "ms.minisig"]);
    assert!(ok.starts_with("ok: acme/guard@1.0.0 — 1 file(s) match the manifest"), "{ok}");
    // A minisign signature with its default trusted comment binds nothing: refused.
    let out = w.cmd("minisign", &["-S", "-s", "ms.key", "-m", "manifest.json", "-x", "plain.minisig"]);
    assert!(out.status.success());
    let err = w.fails(&["bundle", "verify", "g.hhb", "--key", "ms.pub", "--sig", "plain.minisig"], 1);
    assert!(err.contains("was made for \"timestamp:") && err.contains("(replayed)"), "{err}");
    // And a minisign key in a config's trust policy loads the bundle.
    w.ok(&["registry", "push", "g.hhb", "reg", "--sig", "ms.minisig"]);
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@1.0.0\"]\n[registries.local]\npath = \"reg\"\n{}", trust_toml("ms.pub", "acme/*")));
    assert_eq!(run_json(&w, "hooks.toml")["hooks"][0]["id"], "acme/guard:no-rm");
}

#[test]
fn bundle_hooks_join_the_chain_before_user_hooks_and_can_be_muted() {
    let w = Work::new();
    w.pack("acme/guard", "1.0.0", "g.hhb");
    w.key("acme");
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    let pushed = w.ok(&["registry", "push", "g.hhb", "reg"]);
    assert!(pushed.starts_with("pushed acme/guard@1.0.0 with 1 signature(s) → reg/acme/guard@1.0.0 (sha256:"), "{pushed}");
    assert_eq!(w.ok(&["registry", "list", "reg"]), "acme/guard  1.0.0");
    let err = w.fails(&["registry", "list", "regg"], 2);
    assert!(err.ends_with("regg is not a directory registry (no index.json); push a bundle there first, or check the path"), "{err}");
    let base = format!("[registries.local]\npath = \"reg\"\n{}\n[[hooks]]\nid = \"mine\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:redact-secrets\" }}\n", trust_toml("acme.pub", "acme/*"));
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@1.0.0\"]\n{base}"));
    assert_eq!(w.ok(&["check", "--config", "hooks.toml"]).lines().next().unwrap_or_default(), "ok: 2 hook(s) loaded: acme/guard:no-rm, user:mine");
    let shown: serde_json::Value = serde_json::from_str(&w.ok(&["config", "show", "--json", "--config", "hooks.toml"])).unwrap();
    assert_eq!(shown["hooks"][0]["id"], "acme/guard:no-rm");
    assert_eq!(shown["hooks"][0]["plugin"], "acme/guard:guard.wasm");
    let v = run_json(&w, "hooks.toml");
    assert_eq!(v["decision"], "block");
    assert_eq!(v["reason"], "destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name");
    assert_eq!(v["hooks"][0]["id"], "acme/guard:no-rm");
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@1.0.0\"]\ndisabled_contributions = [\"acme/guard:no-rm\"]\n{base}"));
    assert_eq!(w.ok(&["check", "--config", "hooks.toml"]).lines().next().unwrap_or_default(), "ok: 1 hook(s) loaded: user:mine");
    // By digest too.
    let digest = pushed.rsplit('(').next().unwrap().trim_end_matches(')').to_string();
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@{digest}\"]\n{base}"));
    assert_eq!(w.ok(&["check", "--config", "hooks.toml"]).lines().next().unwrap_or_default(), "ok: 2 hook(s) loaded: acme/guard:no-rm, user:mine");
    // A registry name the config does not define.
    w.write("hooks.toml", format!("bundles = [\"corp/acme/guard@1.0.0\"]\n{base}"));
    let err = w.fails(&["check", "--config", "hooks.toml"], 2);
    assert!(err.ends_with("hooks.toml: bundles[0]: no registry named \"corp\"; define [registries.corp] or use one of local"), "{err}");
}

#[test]
fn the_readme_walkthrough_with_the_example_bundle() {
    let w = Work::new().warm();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/bundle");
    w.ok(&["key", "generate", "-o", "acme"]);
    w.ok(&["bundle", "pack", example, "-o", "policy.hhb"]);
    w.ok(&["bundle", "sign", "--key", "acme.key", "policy.hhb"]);
    w.ok(&["registry", "push", "policy.hhb", "registry"]);
    w.write("hooks.toml", format!("bundles = [\"local/acme/shell-policy@1.0.0\"]\n[registries.local]\npath = \"registry\"\n{}", trust_toml("acme.pub", "acme/*")));
    assert_eq!(w.ok(&["check", "--config", "hooks.toml"]).lines().next().unwrap_or_default(), "ok: 2 hook(s) loaded: acme/shell-policy:no-rm-rf, acme/shell-policy:no-push-main");
    let force = "destructive command blocked: git push --force (-f, +refspec, --mirror) overwrites the remote branch and can drop commits others pushed (rule git.push-force); instead: `git push --force-with-lease`, which refuses when the remote moved";
    for (command, hook, reason) in [("git push origin main", 1, "acme policy: main changes through a pull request"), ("rm -rf build", 0, "destructive command blocked: rm -rf is not allowed (rule fs.strict-rm); instead: delete files by name, without -rf"), ("git push --force origin feature", 0, force)] {
        w.write("ev.json", format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"{command}"}}}}"#));
        let v: serde_json::Value = serde_json::from_str(&w.ok(&["run", "--config", "hooks.toml", "--event", "ev.json"])).unwrap();
        assert_eq!(v["decision"], "block", "{command}: {v}");
        assert_eq!(v["reason"], reason);
        assert_eq!(v["hooks"][hook]["decision"], "block");
    }
    w.write("ev.json", r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push origin feature"}}"#);
    let v: serde_json::Value = serde_json::from_str(&w.ok(&["run", "--config", "hooks.toml", "--event", "ev.json"])).unwrap();
    assert_eq!(v["decision"], "pass", "{v}");
}

/// Push `file` (with its signatures) to `reg` and try to load it; return the error.
fn refused_load(w: &Work, version: &str, trust: &str, extra: &str) -> String {
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@{version}\"]\n{extra}[registries.local]\npath = \"reg\"\n{trust}"));
    let err = w.fails(&["run", "--config", "hooks.toml", "--event", "ev.json"], 2);
    w.assert_nothing_cached();
    err
}

#[test]
fn the_trust_policy_refuses_each_bad_signature_with_its_rule() {
    let w = Work::new();
    w.write("ev.json", RM);
    let acme = w.key("acme");
    let other = w.key("other");
    w.pack("acme/guard", "1.0.0", "old.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "old.hhb"]);
    w.pack("acme/guard", "1.1.0", "g.hhb");
    let trusted = trust_toml("acme.pub", "acme/*");

    // Missing signature under require_signed (the default).
    w.ok(&["registry", "push", "g.hhb", "reg"]);
    let err = refused_load(&w, "1.1.0", &trusted, "");
    assert!(err.ends_with("bundle local/acme/guard@1.1.0 (acme/guard@1.1.0): is not signed, and trust.require_signed is on; sign it with a key listed in trust.keys, or set require_signed = false for unsigned development bundles; sign it with `hookhost bundle sign --key KEY`"), "{err}");

    // A valid signature by a key the policy does not list.
    w.ok(&["bundle", "sign", "--key", "other.key", "g.hhb"]);
    w.ok(&["registry", "push", "g.hhb", "reg"]);
    let err = refused_load(&w, "1.1.0", &trusted, "");
    assert!(err.ends_with(&format!("is signed only by key {other}, which trust.keys does not list; add its public key to [[trust.keys]] if you trust it")), "{err}");

    // A trusted key outside its namespace.
    let err = refused_load(&w, "1.1.0", &trust_toml("other.pub", "other/*"), "");
    assert!(err.ends_with(&format!("key {other} ({other}) is trusted only for [other/*] (trust.keys[0].allow), not for acme/guard; use a key trusted for this namespace")), "{err}");

    // The signature of the older version, replayed onto the new one.
    let old_sig = format!("old.hhb.{acme}.minisig");
    w.ok(&["registry", "push", "g.hhb", "reg", "--sig", &old_sig]);
    let err = refused_load(&w, "1.1.0", &trusted, "");
    assert!(err.contains(&format!("the signature by key {acme} ({acme}) was made for \"acme/guard@1.0.0 sha256:")) && err.contains("(replayed)"), "{err}");

    // Too few signers.
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    let acme_sig = format!("g.hhb.{acme}.minisig");
    w.ok(&["registry", "push", "g.hhb", "reg", "--sig", &acme_sig]);
    let both = format!("{trusted}{}", trust_toml("other.pub", "acme/*"));
    let err = refused_load(&w, "1.1.0", &both, "[trust]\nmin_signers = 2\n");
    assert!(err.ends_with(&format!("has 1 trusted signer(s) ({acme}), but trust.min_signers requires 2")), "{err}");

    // Both signatures: loads.
    let other_sig = format!("g.hhb.{other}.minisig");
    w.ok(&["registry", "push", "g.hhb", "reg", "--sig", &acme_sig, "--sig", &other_sig]);
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@1.1.0\"]\n[trust]\nmin_signers = 2\n[registries.local]\npath = \"reg\"\n{both}"));
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
}

#[test]
fn bundle_verify_reports_a_flipped_byte_in_each_part() {
    let w = Work::new();
    let id = w.key("acme");
    w.pack("acme/guard", "1.0.0", "g.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    let sig = format!("g.hhb.{id}.minisig");
    assert!(w.ok(&["bundle", "verify", "g.hhb", "--key", "acme.pub"]).starts_with("ok: "));
    let archive = std::fs::read(w.path("g.hhb")).unwrap();
    let manifest = w.hookhost(&["bundle", "manifest", "g.hhb"]).stdout;
    let find = |needle: &[u8]| archive.windows(needle.len()).position(|x| x == needle).unwrap();
    // A plugin byte (inside the wasm, past the manifest).
    let mut bad = archive.clone();
    let wasm_at = find(b"\0asm");
    bad[wasm_at + 100] ^= 0x01;
    w.write("bad-plugin.hhb", &bad);
    let err = w.fails(&["bundle", "verify", "bad-plugin.hhb", "--key", "acme.pub", "--sig", &sig], 1);
    assert!(err.contains("\"guard.wasm\" has sha256 ") && err.ends_with("the file was altered"), "{err}");
    // A manifest byte (the description), keeping the tar header checksum honest is not needed:
    // hookhost reads the bytes, so re-pack the archive around the altered manifest.
    let mut m = manifest.clone();
    let at = m.windows(11).position(|x| x == b"destructive").unwrap();
    m[at] = b'D';
    let parts = hookhost_bundle::Parts { manifest: m, files: [("guard.wasm".to_string(), hookhost::builtin_plugin("guard-destructive").unwrap().to_vec())].into() };
    w.write("bad-manifest.hhb", hookhost_bundle::Bundle::from_parts(parts, "t").unwrap().archive());
    let err = w.fails(&["bundle", "verify", "bad-manifest.hhb", "--key", "acme.pub", "--sig", &sig], 1);
    assert!(err.contains(&format!("the manifest is not the one key {id} (acme.pub) signed")), "{err}");
    // A signature byte.
    let text_sig = std::fs::read_to_string(w.path(&sig)).unwrap();
    let mut lines: Vec<String> = text_sig.lines().map(String::from).collect();
    let mut l = lines[1].clone().into_bytes();
    l[50] = if l[50] == b'A' { b'B' } else { b'A' };
    lines[1] = String::from_utf8(l).unwrap();
    w.write("bad.minisig", lines.join("\n") + "\n");
    let err = w.fails(&["bundle", "verify", "g.hhb", "--key", "acme.pub", "--sig", "bad.minisig"], 1);
    assert!(err.ends_with(&format!("the signature by key {id} (acme.pub) does not verify against the manifest: the manifest or the signature was altered; nothing was loaded")), "{err}");
    // Not a bundle at all.
    w.write("junk.hhb", b"not a tar archive at all, just text that goes on for a while............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................");
    let err = w.fails(&["bundle", "verify", "junk.hhb", "--key", "acme.pub"], 1);
    assert!(err.starts_with("hookhost: error: junk.hhb: "), "{err}");
    // No trust given.
    let err = w.fails(&["bundle", "verify", "g.hhb"], 2);
    assert!(err.ends_with("nothing to check signatures against: pass --key PUBKEY (a minisign .pub file) or --config with a [trust] section"), "{err}");
}

#[test]
fn the_lock_file_pins_digests_and_locked_refuses_the_rest() {
    let w = Work::new();
    w.key("acme");
    w.pack("acme/guard", "1.0.0", "g.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    let first = w.ok(&["registry", "push", "g.hhb", "reg"]);
    let first_digest = first.rsplit('(').next().unwrap().trim_end_matches(')').to_string();
    let config = format!("bundles = [\"local/acme/guard@1.0.0\"]\n[registries.local]\npath = \"reg\"\n{}", trust_toml("acme.pub", "acme/*"));
    w.write("hooks.toml", &config);
    let err = w.fails(&["check", "--config", "hooks.toml", "--locked"], 2);
    assert!(err.contains("locked, but there is no lock file") && err.contains("run `hookhost lock --config"), "{err}");
    let out = w.ok(&["lock", "--config", "hooks.toml"]);
    assert!(out.contains(&format!("local/acme/guard@1.0.0 = {first_digest}")), "{out}");
    let lock = std::fs::read_to_string(w.path("hooks.lock")).unwrap();
    assert!(lock.contains(&format!("\"local/acme/guard@1.0.0\" = \"{first_digest}\"")), "{lock}");
    w.ok(&["check", "--config", "hooks.toml", "--locked"]);
    // The tag moves to other contents (re-signed, with a second hook); the lock still pins the first.
    let src = w.path("src-g.hhb/bundle.toml");
    let more = std::fs::read_to_string(&src).unwrap() + "\n[[hooks]]\nid = \"second\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"guard.wasm\" }\n";
    std::fs::write(&src, more).unwrap();
    w.ok(&["bundle", "pack", w.path("src-g.hhb").to_str().unwrap(), "-o", "g.hhb"]);
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    w.ok(&["registry", "push", "g.hhb", "reg"]);
    assert_eq!(w.ok(&["check", "--config", "hooks.toml", "--locked"]).lines().next().unwrap_or_default(), "ok: 1 hook(s) loaded: acme/guard:no-rm");
    assert_eq!(w.ok(&["check", "--config", "hooks.toml"]).lines().next().unwrap_or_default(), "ok: 1 hook(s) loaded: acme/guard:no-rm", "the lock is used without --locked too");
    // Re-locking refuses the moved tag until its line is taken out of the lock file.
    let err = w.fails(&["lock", "--config", "hooks.toml"], 2);
    assert!(err.contains("the tag of local/acme/guard@1.0.0 moved"), "{err}");
    std::fs::remove_file(w.path("hooks.lock")).unwrap();
    w.ok(&["lock", "--config", "hooks.toml"]);
    assert_eq!(w.ok(&["check", "--config", "hooks.toml", "--locked"]).lines().next().unwrap_or_default(), "ok: 2 hook(s) loaded: acme/guard:no-rm, acme/guard:second");
    // A bundle the lock file does not pin.
    w.pack("acme/other", "2.0.0", "o.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "o.hhb"]);
    w.ok(&["registry", "push", "o.hhb", "reg"]);
    w.write("hooks.toml", config.replace("bundles = [\"local/acme/guard@1.0.0\"]", "bundles = [\"local/acme/guard@1.0.0\", \"local/acme/other@2.0.0\"]"));
    let err = w.fails(&["check", "--config", "hooks.toml", "--locked"], 2);
    assert!(err.contains("bundles[1]: local/acme/other@2.0.0 is not in the lock file") && err.ends_with("and commit the lock file"), "{err}");
}

#[test]
fn a_bundle_gets_process_access_only_when_granted_for_the_bundle() {
    let w = Work::new().warm();
    w.key("acme");
    w.write(
        "sh/bundle.toml",
        "name = \"acme/sh\"\nversion = \"1.0.0\"\n\n[[hooks]]\nid = \"marker\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { mode = \"host\", command = \"touch marker\" } }\n",
    );
    w.ok(&["bundle", "pack", "sh", "-o", "sh.hhb"]);
    w.ok(&["bundle", "sign", "--key", "acme.key", "sh.hhb"]);
    w.ok(&["registry", "push", "sh.hhb", "reg"]);
    w.write("ev.json", RM);
    let base = format!("bundles = [\"local/acme/sh@1.0.0\"]\n[registries.local]\npath = \"reg\"\n{}", trust_toml("acme.pub", "acme/*"));
    // The user's grant to their own use of the bash adapter does not reach the bundle's.
    w.write("hooks.toml", format!("{base}[grants]\n\"builtin:bash-adapter\" = [\"process:exec\"]\n"));
    let err = w.fails(&["run", "--config", "hooks.toml", "--event", "ev.json"], 2);
    assert!(err.contains("acme/sh:marker: plugin acme/sh:builtin:bash-adapter needs the capability process:exec"), "{err}");
    assert!(err.ends_with("which is not granted; if you trust the bundle, add `[grants]` \"acme/sh:builtin:bash-adapter\" = [\"process:exec\"]` to the config"), "{err}");
    assert!(!err.contains("--grant"), "--grant does not reach bundles: {err}");
    assert!(!w.path("marker").exists());
    w.write("hooks.toml", format!("{base}[grants]\n\"acme/sh:builtin:bash-adapter\" = [\"process:exec\"]\n"));
    let v = run_json(&w, "hooks.toml");
    assert_eq!(v["hooks"][0]["id"], "acme/sh:marker", "{v}");
    assert!(w.path("marker").exists(), "the granted host-mode hook ran");
}

// ---------------------------------------------------------------------------------------------
// A real OCI registry on loopback.

struct Registry {
    child: Child,
    addr: String,
    storage: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn http_status(addr: &str, path: &str) -> Option<u16> {
    let mut s = std::net::TcpStream::connect_timeout(&addr.parse().ok()?, Duration::from_millis(200)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut buf = [0u8; 32];
    let n = s.read(&mut buf).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.split_whitespace().nth(1)?.parse().ok()
}

impl Registry {
    /// Start `docker-registry` on a free loopback port (with htpasswd auth when given).
    fn start(htpasswd: Option<&str>) -> Option<Registry> {
        if !have("docker-registry") {
            return None;
        }
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let storage = dir.path().join("storage");
            let addr = format!("127.0.0.1:{}", free_port());
            let mut config = format!("version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n", storage.display());
            if let Some(line) = htpasswd {
                std::fs::write(dir.path().join("htpasswd"), format!("{line}\n")).unwrap();
                config.push_str(&format!("auth:\n  htpasswd:\n    realm: hookhost-test\n    path: {}\n", dir.path().join("htpasswd").display()));
            }
            std::fs::write(dir.path().join("config.yml"), config).unwrap();
            let log = std::fs::File::create(dir.path().join("log")).unwrap();
            let mut child = Command::new("docker-registry").arg("serve").arg(dir.path().join("config.yml")).stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(15) {
                if let Some(200 | 401) = http_status(&addr, "/v2/") {
                    return Some(Registry { child, addr, storage, _dir: dir });
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("docker-registry did not start on loopback");
    }

    fn location(&self) -> String {
        format!("oci://{}/hooks", self.addr)
    }

    /// The file holding a blob in the registry's own storage.
    fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap();
        self.storage.join("docker/registry/v2/blobs/sha256").join(&hex[..2]).join(hex).join("data")
    }
}

/// A signed bundle pushed to a fresh registry, and a config that uses it.
fn oci_setup(w: &Work, reg: &Registry) -> String {
    w.key("acme");
    w.pack("acme/guard", "1.0.0", "g.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    let out = w.ok(&["registry", "push", "g.hhb", &reg.location()]);
    assert!(out.starts_with(&format!("pushed acme/guard@1.0.0 with 1 signature(s) → {}/acme/guard@1.0.0 (sha256:", reg.location())), "{out}");
    w.write("hooks.toml", format!("bundles = [\"org/acme/guard@1.0.0\"]\n[registries.org]\noci = \"{}/hooks\"\n{}", reg.addr, trust_toml("acme.pub", "acme/*")));
    out.rsplit('(').next().unwrap().trim_end_matches(')').to_string()
}

#[test]
fn oci_push_pull_by_tag_and_digest_and_run() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    let digest = oci_setup(&w, &reg);
    assert_eq!(w.ok(&["registry", "list", &reg.location()]), "acme/guard  1.0.0");
    // Pull by tag and by digest.
    let out = w.ok(&["registry", "pull", &format!("{}/acme/guard@1.0.0", reg.location()), "--key", "acme.pub"]);
    assert!(out.starts_with(&format!("pulled acme/guard@1.0.0 ({digest}); trusted signer(s): ")), "{out}");
    // Pre-warmed: the plugin is compiled into the precompile cache by the pull.
    assert!(out.ends_with(&format!("precompiled 1 plugin(s) into {}", w.path("cache").display())), "{out}");
    let plugin = hookhost_types::ids::sha256_hex(hookhost::builtin_plugin("guard-destructive").unwrap());
    let cached: Vec<String> = std::fs::read_dir(w.path("cache")).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(cached.iter().any(|f| f.starts_with(&plugin) && f.ends_with(".cwasm")), "{cached:?}");
    let out = w.ok(&["registry", "pull", &format!("{}/acme/guard@{digest}", reg.location()), "--key", "acme.pub"]);
    assert!(out.starts_with(&format!("pulled acme/guard@1.0.0 ({digest})")), "{out}");
    // Mirror into a local directory registry.
    w.ok(&["registry", "pull", &format!("{}/acme/guard@1.0.0", reg.location()), "--key", "acme.pub", "--to", "mirror"]);
    assert_eq!(w.ok(&["registry", "list", "mirror"]), "acme/guard  1.0.0");
    // Run the pulled hooks from the config.
    let v = run_json(&w, "hooks.toml");
    assert_eq!(v["decision"], "block");
    assert_eq!(v["hooks"][0]["id"], "acme/guard:no-rm");
    // Pinned by digest in the config.
    let cfg = std::fs::read_to_string(w.path("hooks.toml")).unwrap().replace("@1.0.0", &format!("@{digest}"));
    w.write("pinned.toml", cfg);
    assert_eq!(run_json(&w, "pinned.toml")["decision"], "block");
}

#[test]
fn oci_not_found_and_wrong_media_type_are_told_apart() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    oci_setup(&w, &reg);
    let err = w.fails(&["registry", "pull", &format!("{}/acme/missing@1.0.0", reg.location()), "--key", "acme.pub"], 1);
    assert!(err.contains(&format!("not found (404): {} has no hooks/acme/missing:1.0.0", reg.addr)), "{err}");
    // An artifact that is not a hookhost bundle (an ordinary image config) under a bundle's name.
    let remote = hookhost_bundle::oci::Remote::new(&hookhost_config::OciLocation::parse(&reg.location(), false).unwrap()).unwrap();
    let config = br#"{"architecture":"amd64","os":"linux"}"#.to_vec();
    let layer = b"not a bundle".to_vec();
    let d = |b: &[u8]| hookhost_types::Digest::of(b).to_string();
    let manifest = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": d(&config), "size": config.len()},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": d(&layer), "size": layer.len()}],
    }))
    .unwrap();
    let artifact = hookhost_bundle::store::Artifact { manifest, blobs: [(d(&config), config), (d(&layer), layer)].into() };
    tokio::runtime::Runtime::new().unwrap().block_on(remote.push("acme/image", "1.0.0", &artifact)).unwrap();
    let err = w.fails(&["registry", "pull", &format!("{}/acme/image@1.0.0", reg.location()), "--key", "acme.pub"], 1);
    assert!(err.contains("wrong media type: the artifact's config is \"application/vnd.oci.image.config.v1+json\", a hookhost bundle's is \"application/vnd.wasm.config.v0+json\""), "{err}");
    w.assert_nothing_cached();
}

#[test]
fn oci_blob_larger_than_its_descriptor_is_refused() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    let src = w.source("src", "acme/guard", "1.0.0");
    let b = hookhost_bundle::pack(&src).unwrap();
    let (secret, public, _) = hookhost_bundle::trust::generate_key("t").unwrap();
    w.write("t.pub", &public);
    let (sig, _) = hookhost_bundle::trust::sign(&b, &secret, None).unwrap();
    let mut artifact = hookhost_bundle::store::Artifact::of(&b, &[sig]);
    // The OCI manifest under-declares the plugin layer's size by a byte.
    let mut m: serde_json::Value = serde_json::from_slice(&artifact.manifest).unwrap();
    let wasm = m["layers"].as_array_mut().unwrap().iter_mut().find(|l| l["mediaType"] == "application/wasm").unwrap();
    let declared = wasm["size"].as_i64().unwrap() - 1;
    wasm["size"] = declared.into();
    artifact.manifest = serde_json::to_vec(&m).unwrap();
    let remote = hookhost_bundle::oci::Remote::new(&hookhost_config::OciLocation::parse(&reg.location(), false).unwrap()).unwrap();
    tokio::runtime::Runtime::new().unwrap().block_on(remote.push("acme/guard", "1.0.0", &artifact)).unwrap();
    let err = w.fails(&["registry", "pull", &format!("{}/acme/guard@1.0.0", reg.location()), "--key", "t.pub"], 1);
    assert!(err.contains(&format!("is larger than the {declared} bytes its descriptor declares; refused")), "{err}");
    w.assert_nothing_cached();
}

#[test]
fn oci_blob_digest_mismatch_is_refused_and_a_corrupt_cache_is_refetched() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    oci_setup(&w, &reg);
    let wasm = hookhost::builtin_plugin("guard-destructive").unwrap();
    let wasm_digest = hookhost_types::Digest::of(wasm).to_string();
    // The registry's stored copy of the plugin gets a flipped byte: it now serves content that
    // does not match the digest it is asked for.
    let stored = reg.blob_file(&wasm_digest);
    let good = std::fs::read(&stored).unwrap();
    let mut bad = good.clone();
    bad[200] ^= 0x01;
    std::fs::write(&stored, &bad).unwrap();
    w.write("ev.json", RM);
    let err = w.fails(&["run", "--config", "hooks.toml", "--event", "ev.json"], 2);
    assert!(err.contains(&format!("digest mismatch: {} served blob {wasm_digest} of hooks/acme/guard@", reg.addr)) && err.contains("nothing was cached or run"), "{err}");
    w.assert_nothing_cached();
    // Repaired, it loads and is cached.
    std::fs::write(&stored, &good).unwrap();
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    let cached = w.path("cache/bundles/blobs/sha256").join(wasm_digest.strip_prefix("sha256:").unwrap());
    assert_eq!(std::fs::read(&cached).unwrap(), wasm);
    // Corrupt the cached copy: detected, fetched again, never executed.
    let mut c = wasm.to_vec();
    c[300] ^= 0x01;
    std::fs::write(&cached, &c).unwrap();
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    assert_eq!(std::fs::read(&cached).unwrap(), wasm, "the damaged cache entry was replaced by a fresh pull");
    // With the registry gone, a corrupt cache is an error, not a run.
    std::fs::write(&cached, &c).unwrap();
    drop(reg);
    let err = w.fails(&["run", "--config", "hooks.toml", "--event", "ev.json"], 2);
    assert!(err.contains("cannot reach the registry"), "{err}");
}

#[test]
fn oci_unauthorized_then_docker_config_credentials() {
    if !have("htpasswd") {
        return;
    }
    let w = Work::new();
    let out = w.cmd("htpasswd", &["-Bbn", "alice", "s3cret"]);
    assert!(out.status.success());
    let Some(reg) = Registry::start(Some(text(&out.stdout).trim())) else { return };
    w.key("acme");
    w.pack("acme/guard", "1.0.0", "g.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    let err = w.fails(&["registry", "push", "g.hhb", &reg.location()], 1);
    assert!(err.contains(&format!("refused (401 unauthorized): {} wants credentials", reg.addr)) && err.contains("docker login"), "{err}");
    use base64::Engine as _;
    let auth = base64::engine::general_purpose::STANDARD.encode("alice:s3cret");
    w.write("docker/config.json", format!("{{\"auths\":{{\"{}\":{{\"auth\":\"{auth}\"}}}}}}", reg.addr));
    w.ok(&["registry", "push", "g.hhb", &reg.location()]);
    w.ok(&["registry", "pull", &format!("{}/acme/guard@1.0.0", reg.location()), "--key", "acme.pub"]);
    // Wrong password.
    let auth = base64::engine::general_purpose::STANDARD.encode("alice:wrong");
    w.write("docker/config.json", format!("{{\"auths\":{{\"{}\":{{\"auth\":\"{auth}\"}}}}}}", reg.addr));
    let err = w.fails(&["registry", "pull", &format!("{}/acme/guard@1.0.0", reg.location()), "--key", "acme.pub"], 1);
    assert!(err.contains("refused (401 unauthorized)"), "{err}");
}

/// A registry cannot substitute: another bundle (or another version) served under the
/// requested tag is refused, and so is an OCI manifest that does not hash to the digest asked
/// for. Nothing is cached either way.
#[test]
fn oci_a_registry_cannot_substitute_a_bundle_or_a_manifest() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    let digest = oci_setup(&w, &reg);
    let remote = hookhost_bundle::oci::Remote::new(&hookhost_config::OciLocation::parse(&reg.location(), false).unwrap()).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Signed by the same trusted key, but another name and another version, each pushed under
    // the tag of acme/guard:1.0.0's neighbours.
    let secret = std::fs::read_to_string(w.path("acme.key")).unwrap();
    for (name, version, tag_of) in [("acme/other", "1.0.0", "acme/guard"), ("acme/guard", "2.0.0", "acme/guard")] {
        let b = hookhost_bundle::pack(&w.source(&format!("sub-{}-{version}", name.replace('/', "-")), name, version)).unwrap();
        let (sig, _) = hookhost_bundle::trust::sign(&b, &secret, None).unwrap();
        rt.block_on(remote.push(tag_of, "1.5.0", &hookhost_bundle::store::Artifact::of(&b, &[sig]))).unwrap();
        let err = w.fails(&["registry", "pull", &format!("{}/acme/guard@1.5.0", reg.location()), "--key", "acme.pub"], 1);
        assert!(err.contains(&format!("the registry served {name}@{version} instead; a registry may not substitute one bundle for another")), "{err}");
        w.assert_nothing_cached();
    }
    // The registry's stored manifest altered (still valid JSON): pulled by digest, it no longer
    // hashes to that digest.
    let file = reg.blob_file(&digest);
    let manifest = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, manifest.replacen("guard.wasm", "guard.wasN", 1)).unwrap();
    let err = w.fails(&["registry", "pull", &format!("{}/acme/guard@{digest}", reg.location()), "--key", "acme.pub"], 1);
    assert!(err.contains(&format!("digest mismatch: {} served a manifest for hooks/acme/guard@{digest} that hashes to sha256:", reg.addr)), "{err}");
    w.assert_nothing_cached();
}

/// Plain HTTP is for loopback only, unless a registry is marked `insecure_http`: a plain-HTTP
/// location anywhere else is refused before any connection is made.
#[test]
fn oci_plain_http_only_to_loopback_unless_insecure_http() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    oci_setup(&w, &reg);
    // insecure_http against the loopback registry, and an explicit http:// scheme there.
    let cfg = std::fs::read_to_string(w.path("hooks.toml")).unwrap().replace(&format!("oci = \"{}/hooks\"", reg.addr), &format!("oci = \"http://{}/hooks\"\ninsecure_http = true", reg.addr));
    w.write("insecure.toml", cfg);
    assert_eq!(run_json(&w, "insecure.toml")["decision"], "block");
    // A non-loopback address of this machine (when it has one) with a listener behind it.
    let local = std::net::UdpSocket::bind("0.0.0.0:0").and_then(|s| s.connect("192.0.2.1:9").map(|_| s)).and_then(|s| s.local_addr()).map(|a| a.ip()).ok().filter(|ip| !ip.is_loopback() && !ip.is_unspecified());
    let listener = local.map(|ip| std::net::TcpListener::bind((ip, 0)).unwrap());
    let target = listener.as_ref().map_or("192.0.2.1:5000".to_string(), |l| l.local_addr().unwrap().to_string());
    if let Some(l) = &listener {
        l.set_nonblocking(true).unwrap();
    }
    let started = Instant::now();
    let err = w.fails(&["registry", "pull", &format!("http://{target}/hooks/acme/guard@1.0.0"), "--key", "acme.pub"], 1);
    assert!(err.contains(&format!("plain HTTP to {target}, which is not on this machine, is refused")), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5), "refused without trying to connect");
    if let Some(l) = listener {
        assert_eq!(l.accept().map(|_| ()).unwrap_err().kind(), std::io::ErrorKind::WouldBlock, "a connection was made");
    }
    // The same in a config is a config error naming the field.
    w.write("plain.toml", format!("bundles = [\"far/acme/guard@1.0.0\"]\n[registries.far]\noci = \"http://{target}/hooks\"\n{}", trust_toml("acme.pub", "acme/*")));
    let err = w.fails(&["check", "--config", "plain.toml"], 2);
    assert!(err.contains(&format!("registries.far.oci: \"http://{target}/hooks\": plain HTTP to {target}")), "{err}");
}

/// Run hookhost with `args`: (exit code, stdout, stderr).
fn outcome(w: &Work, args: &[&str]) -> (Option<i32>, String, String) {
    let out = w.hookhost(args);
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn oci_revocations_refuse_even_a_locked_cached_version_and_untrusted_ones_are_ignored() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    oci_setup(&w, &reg);
    let location = reg.location();
    w.ok(&["lock", "--config", "hooks.toml"]);
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    // A revocation signed by a key the host does not trust: ignored, and said so.
    let stranger = w.key("stranger");
    let out = w.ok(&["bundle", "revoke", "--key", "stranger.key", "--reason", "not yours to revoke", "acme/guard@1.0.0", &location]);
    assert_eq!(out, format!("revoked acme/guard@1.0.0, signed by key {stranger} → {location}/acme/guard:revocations (1 revocation(s))"));
    let (code, stdout, stderr) = outcome(&w, &["update", "--config", "hooks.toml", "--yes"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "up to date: hooks.lock pins the same 1 bundle(s)");
    assert!(stderr.contains(&format!("revocation 1 of acme/guard: signed by key {stranger}, which the trust policy does not list; ignored")), "{stderr}");
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    // A record whose signature does not verify (its reason altered after signing): ignored.
    let remote = hookhost_bundle::oci::Remote::new(&hookhost_config::OciLocation::parse(&location, false).unwrap()).unwrap();
    let name: hookhost_types::BundleName = "acme/guard".parse().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let acme_secret = std::fs::read_to_string(w.path("acme.key")).unwrap();
    let record = hookhost_bundle::revoke::Record { kind: "hookhost-revocation".into(), bundle: "acme/guard".into(), version: Some("1.0.0".into()), key: None, reason: "genuine".into(), issued: 1_795_526_271 };
    let (mut forged, _) = hookhost_bundle::revoke::sign(&record, &acme_secret, None).unwrap();
    forged.record = forged.record.replace("genuine", "forged!");
    let list = hookhost_bundle::revoke::List { revocations: vec![forged] };
    rt.block_on(remote.push(&name, hookhost_bundle::revoke::TAG, &list.artifact(&name))).unwrap();
    let (code, _, stderr) = outcome(&w, &["update", "--config", "hooks.toml", "--yes"]);
    assert_eq!(code, Some(0), "{stderr}");
    // (The host keeps what it saw before: the forged record is the list's second.)
    assert!(stderr.contains("revocation 2 of acme/guard: the signature by key") && stderr.contains("fails verification (it was made for other content); ignored"), "{stderr}");
    // Revoked by the trusted key: update refuses it, and so does a run the lock pins and the
    // cache holds, naming the revocation, its signer and its reason.
    let out = w.ok(&["bundle", "revoke", "--key", "acme.key", "--reason", "leaks the session id; use 1.0.1", "acme/guard@1.0.0", &location]);
    assert!(out.ends_with("(2 revocation(s))"), "{out}");
    let acme = out.split("signed by key ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    let (code, _, stderr) = outcome(&w, &["update", "--config", "hooks.toml", "--yes"]);
    assert_eq!(code, Some(2));
    let why = format!("this version is revoked by key {acme} on ");
    assert!(stderr.contains(&why) && stderr.contains(": leaks the session id; use 1.0.1; it is refused even when a lock file pins it"), "{stderr}");
    let (code, stdout, stderr) = outcome(&w, &["run", "--config", "hooks.toml", "--locked", "--event", "ev.json"]);
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr}");
    assert!(stderr.contains(&why) && stderr.contains("leaks the session id"), "{stderr}");
    // Even with the registry gone: the revocation was cached when it was fetched.
    drop(reg);
    let (code, _, stderr) = outcome(&w, &["run", "--config", "hooks.toml", "--event", "ev.json"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains(&why), "{stderr}");
}

#[test]
fn oci_a_locked_cached_config_runs_through_an_outage_and_resolve_ttl_bounds_the_rest() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    oci_setup(&w, &reg);
    let config = std::fs::read_to_string(w.path("hooks.toml")).unwrap();
    w.write("locked.toml", &config);
    w.ok(&["lock", "--config", "locked.toml"]);
    assert_eq!(run_json(&w, "locked.toml")["decision"], "block");
    // Unlocked: each run asks the registry, and remembers the answer.
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    w.write("strict.toml", format!("resolve_ttl = 0\n{config}"));
    assert_eq!(run_json(&w, "strict.toml")["decision"], "block");
    drop(reg);
    // Locked and cached: no network at all.
    let (code, stdout, stderr) = outcome(&w, &["run", "--config", "locked.toml", "--event", "ev.json"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("\"decision\":\"block\""), "{stdout}");
    assert!(!stderr.contains("reach"), "{stderr}");
    // Unlocked, within resolve_ttl: served from the remembered resolution, with a warning.
    let (code, stdout, stderr) = outcome(&w, &["run", "--config", "hooks.toml", "--event", "ev.json"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("\"decision\":\"block\""), "{stdout}");
    assert!(stderr.contains("cannot reach the registry") && stderr.contains("using its resolution from") && stderr.contains("within resolve_ttl"), "{stderr}");
    // Beyond it: the outage is an error that says what to do.
    let (code, _, stderr) = outcome(&w, &["run", "--config", "strict.toml", "--event", "ev.json"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("beyond resolve_ttl (0s); write a lock file (`hookhost lock`)"), "{stderr}");
}

/// Pack, sign (with acme.key) and push `acme/guard@version` to `location`, its description set.
fn publish_version(w: &Work, version: &str, description: &str, location: &str) {
    publish_with(w, version, description, "", location);
}

/// As [`publish_version`], with `hook` (TOML) added to its hook's table.
fn publish_with(w: &Work, version: &str, description: &str, hook: &str, location: &str) {
    let src = w.source(&format!("src-{version}-{description}"), "acme/guard", version);
    let manifest = std::fs::read_to_string(src.join("bundle.toml")).unwrap().replace("blocks destructive commands", description) + hook;
    std::fs::write(src.join("bundle.toml"), manifest).unwrap();
    let file = format!("g-{version}.hhb");
    w.ok(&["bundle", "pack", src.to_str().unwrap(), "-o", &file]);
    for entry in std::fs::read_dir(w.path(".")).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&format!("{file}.")) {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    w.ok(&["bundle", "sign", "--key", "acme.key", &file]);
    w.ok(&["registry", "push", &file, location]);
}

#[test]
fn oci_version_ranges_resolve_to_the_newest_allowed_and_update_shows_the_difference() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    w.key("acme");
    let location = reg.location();
    publish_version(&w, "1.0.0", "first", &location);
    publish_version(&w, "1.1.0", "second", &location);
    publish_version(&w, "2.0.0", "breaking", &location);
    w.write("hooks.toml", format!("bundles = [\"org/acme/guard@^1.0\"]\n[registries.org]\noci = \"{}/hooks\"\n{}", reg.addr, trust_toml("acme.pub", "acme/*")));
    let out = w.ok(&["update", "--config", "hooks.toml", "--yes"]);
    assert!(out.starts_with("bundles:\n  + org/acme/guard@^1.0 → 1.1.0 (sha256:") && out.contains("hooks:\n  + acme/guard:no-rm (on pre_tool_use)\n") && out.ends_with("wrote hooks.lock (1 bundle(s))"), "{out}");
    let lock = std::fs::read_to_string(w.path("hooks.lock")).unwrap();
    assert!(lock.contains("\"org/acme/guard@^1.0\" = \"sha256:"), "{lock}");
    // A newer allowed version: --dry-run shows it and writes nothing; without --yes and no
    // terminal, nothing is written either.
    publish_version(&w, "1.2.0", "third", &location);
    let out = w.ok(&["update", "--config", "hooks.toml", "--dry-run"]);
    assert!(out.starts_with("bundles:\n  ~ org/acme/guard@^1.0: 1.1.0 → 1.2.0 (sha256:") && out.ends_with("dry run: hooks.lock not written"), "{out}");
    assert_eq!(std::fs::read_to_string(w.path("hooks.lock")).unwrap(), lock);
    let (code, stdout, err) = outcome(&w, &["update", "--config", "hooks.toml"]);
    assert_eq!(code, Some(2));
    assert!(stdout.starts_with("bundles:\n  ~ org/acme/guard@^1.0: 1.1.0 → 1.2.0"), "{stdout}");
    assert!(err.ends_with("hooks.lock not written: pass --yes to write it (or --dry-run to only look)"), "{err}");
    // The lock pins 1.1.0 until updated.
    w.write("ev.json", RM);
    let v: serde_json::Value = serde_json::from_str(&w.ok(&["run", "--config", "hooks.toml", "--locked", "--event", "ev.json"])).unwrap();
    assert_eq!(v["decision"], "block");
    // A revoked 1.2.0 is skipped: update stays on 1.1.0.
    w.ok(&["bundle", "revoke", "--key", "acme.key", "--reason", "broken", "acme/guard@1.2.0", &location]);
    assert_eq!(w.ok(&["update", "--config", "hooks.toml", "--yes"]), "up to date: hooks.lock pins the same 1 bundle(s)");
    // A release that stops its hook deciding says so in as many words (issue #48).
    publish_with(&w, "1.3.0", "quiet", "mode = \"observe\"\n", &location);
    let out = w.ok(&["update", "--config", "hooks.toml", "--dry-run"]);
    assert!(out.contains("  ~ acme/guard:no-rm: settings, mode changed\n    ! acme/guard:no-rm switches to observe mode (enforce → observe): its decisions will be recorded, not applied\n") || out.contains("    ! acme/guard:no-rm switches to observe mode (enforce → observe): its decisions will be recorded, not applied\n"), "{out}");
    publish_with(&w, "1.4.0", "behind", "background = true\n", &location);
    let out = w.ok(&["update", "--config", "hooks.toml", "--dry-run"]);
    assert!(out.contains("    ! acme/guard:no-rm moves to the background: it will no longer block or rewrite anything\n"), "{out}");
    // A mirror gets the revocations with what it pulls.
    w.ok(&["registry", "pull", &format!("{location}/acme/guard@1.1.0"), "--key", "acme.pub", "--to", "mirror"]);
    assert_eq!(w.ok(&["registry", "list", "mirror"]), "acme/guard  1.1.0 revocations");
    // No version in range: the versions the registry has are named.
    w.write("far.toml", std::fs::read_to_string(w.path("hooks.toml")).unwrap().replace("^1.0", "^3"));
    let err = w.fails(&["update", "--config", "far.toml", "--yes"], 2);
    assert!(err.contains("has no version of acme/guard matching ^3 (it has 1.0.0, 1.1.0, 1.2.0, 1.3.0, 1.4.0, 2.0.0)"), "{err}");
}

#[test]
fn oci_a_tag_that_moved_under_a_pinned_digest_is_refused() {
    let Some(reg) = Registry::start(None) else { return };
    let w = Work::new();
    w.key("acme");
    let location = reg.location();
    publish_version(&w, "1.0.0", "original", &location);
    w.write("hooks.toml", format!("bundles = [\"org/acme/guard@1.0.0\"]\n[registries.org]\noci = \"{}/hooks\"\n{}", reg.addr, trust_toml("acme.pub", "acme/*")));
    w.ok(&["lock", "--config", "hooks.toml"]);
    let lock = std::fs::read_to_string(w.path("hooks.lock")).unwrap();
    // The same version pushed again with other content: the tag now names another digest.
    publish_version(&w, "1.0.0", "replaced", &location);
    for cmd in [&["update", "--config", "hooks.toml", "--yes"][..], &["lock", "--config", "hooks.toml"][..]] {
        let err = w.fails(cmd, 2);
        assert!(err.contains("bundles[0]: the tag of org/acme/guard@1.0.0 moved: the lock file pins sha256:") && err.contains("a published version must not change"), "{cmd:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(w.path("hooks.lock")).unwrap(), lock, "the lock file is untouched");
}

/// A directory registry rolled back (its index as it was before a revocation) does not
/// un-revoke; a version tag re-pointed at an older signed artifact is refused, not a silent
/// downgrade (issue #39).
#[test]
fn a_directory_registry_cannot_roll_back_a_revocation_or_downgrade_a_range() {
    let w = Work::new();
    w.key("acme");
    for (version, file) in [("1.0.0", "a.hhb"), ("1.1.0", "b.hhb")] {
        w.pack("acme/guard", version, file);
        w.ok(&["bundle", "sign", "--key", "acme.key", file]);
        w.ok(&["registry", "push", file, "reg"]);
    }
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@^1\"]\n[registries.local]\npath = \"reg\"\n{}", trust_toml("acme.pub", "acme/*")));
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    // Re-point the 1.1.0 tag at the 1.0.0 artifact, as a rolled-back or tampered index would.
    let index_file = w.path("reg/index.json");
    let before = std::fs::read_to_string(&index_file).unwrap();
    let mut index: serde_json::Value = serde_json::from_str(&before).unwrap();
    let digest_of = |index: &serde_json::Value, tag: &str| index["manifests"].as_array().unwrap().iter().find(|m| m["annotations"]["org.opencontainers.image.ref.name"].as_str().is_some_and(|r| r.ends_with(tag))).map(|m| m["digest"].clone()).unwrap();
    let old = digest_of(&index, ":1.0.0");
    for m in index["manifests"].as_array_mut().unwrap() {
        if m["annotations"]["org.opencontainers.image.ref.name"].as_str().is_some_and(|r| r.ends_with(":1.1.0")) {
            m["digest"] = old.clone();
        }
    }
    std::fs::write(&index_file, serde_json::to_vec(&index).unwrap()).unwrap();
    w.write("ev.json", RM);
    let err = w.fails(&["run", "--config", "hooks.toml", "--event", "ev.json"], 2);
    assert!(err.contains("the registry's tag 1.1.0 names an artifact of version 1.0.0") && err.contains("a version's tag must name that version"), "{err}");
    std::fs::write(&index_file, &before).unwrap();
    // Revoke 1.1.0: the range moves to 1.0.0. Then the registry's index goes back to how it was
    // before the revocation: 1.1.0 stays revoked on this host.
    w.ok(&["bundle", "revoke", "--key", "acme.key", "--reason", "leaks tokens", "acme/guard@1.1.0", "reg"]);
    let out = w.ok(&["check", "--config", "hooks.toml"]);
    assert!(out.starts_with("ok: 1 hook(s) loaded"), "{out}");
    w.write("exact.toml", format!("bundles = [\"local/acme/guard@1.1.0\"]\n[registries.local]\npath = \"reg\"\n{}", trust_toml("acme.pub", "acme/*")));
    let err = w.fails(&["check", "--config", "exact.toml"], 2);
    assert!(err.contains("this version is revoked by key"), "{err}");
    std::fs::write(&index_file, &before).unwrap();
    let err = w.fails(&["check", "--config", "exact.toml"], 2);
    assert!(err.contains("this version is revoked by key") && err.contains("leaks tokens"), "a rolled-back index un-revoked 1.1.0: {err}");
}

/// A locked config whose bundle comes from a directory registry runs on when that directory is
/// gone: the verified copy was kept in the cache when it resolved (issue #38, "offline once
/// locked, whatever the registry").
#[test]
fn a_locked_directory_bundle_runs_with_the_registry_gone() {
    let w = Work::new();
    w.key("acme");
    w.pack("acme/guard", "1.0.0", "g.hhb");
    w.ok(&["bundle", "sign", "--key", "acme.key", "g.hhb"]);
    w.ok(&["registry", "push", "g.hhb", "reg"]);
    w.write("hooks.toml", format!("bundles = [\"local/acme/guard@^1\"]\n[registries.local]\npath = \"reg\"\n{}", trust_toml("acme.pub", "acme/*")));
    w.ok(&["lock", "--config", "hooks.toml"]);
    assert_eq!(run_json(&w, "hooks.toml")["decision"], "block");
    std::fs::rename(w.path("reg"), w.path("reg-gone")).unwrap();
    w.write("ev.json", RM);
    let v: serde_json::Value = serde_json::from_str(&w.ok(&["run", "--locked", "--config", "hooks.toml", "--event", "ev.json"])).unwrap();
    assert_eq!(v["decision"], "block", "{v}");
    // Without a lock nothing says which version: that is an error naming the bundle, not a pass.
    std::fs::remove_file(w.path("hooks.lock")).unwrap();
    let err = w.fails(&["run", "--config", "hooks.toml", "--event", "ev.json"], 2);
    assert!(err.contains("local/acme/guard@^1") && err.contains("not found"), "{err}");
}

/// Before an update is written, each capability a bundle's plugin newly asks for is shown with
/// whether the config grants it — never granted silently.
#[test]
fn update_shows_each_new_capability_and_whether_the_config_grants_it() {
    let w = Work::new();
    w.key("acme");
    let publish = |version: &str, capabilities: &str| {
        let src = w.source(&format!("src-{version}"), "acme/guard", version);
        let manifest = std::fs::read_to_string(src.join("bundle.toml")).unwrap().replace("file = \"guard.wasm\"\n", &format!("file = \"guard.wasm\"\n{capabilities}"));
        std::fs::write(src.join("bundle.toml"), manifest).unwrap();
        let file = format!("g-{version}.hhb");
        w.ok(&["bundle", "pack", src.to_str().unwrap(), "-o", &file]);
        w.ok(&["bundle", "sign", "--key", "acme.key", &file]);
        w.ok(&["registry", "push", &file, "reg"]);
    };
    publish("1.0.0", "");
    let config = |grants: &str| format!("bundles = [\"local/acme/guard@^1.0\"]\n{grants}[registries.local]\npath = \"reg\"\n{}", trust_toml("acme.pub", "acme/*"));
    w.write("hooks.toml", config(""));
    w.ok(&["update", "--config", "hooks.toml", "--yes"]);
    publish("1.1.0", "capabilities = [\"net:http:127.0.0.1:9\"]\n");
    let out = w.ok(&["update", "--config", "hooks.toml", "--dry-run"]);
    assert!(out.contains("capabilities:\n  + acme/guard:guard.wasm requests net:http:127.0.0.1:9 — not granted (to let it: \"acme/guard:guard.wasm\" = [\"net:http:127.0.0.1:9\"] under [grants])\n"), "{out}");
    // A config that already grants it: said so, with what that means, before the lock is written.
    w.write("hooks.toml", config("[grants]\n\"acme/guard:guard.wasm\" = [\"net:http:127.0.0.1:9\"]\n"));
    let out = w.ok(&["update", "--config", "hooks.toml", "--dry-run"]);
    assert!(out.contains("  + acme/guard:guard.wasm requests net:http:127.0.0.1:9 — granted by the config\n"), "{out}");
    assert!(out.contains("note: the config already grants a capability this update newly requests; it takes effect once the lock file is written"), "{out}");
    // bundle inspect says the same of a bundle file, against a config.
    let out = w.ok(&["bundle", "inspect", "g-1.1.0.hhb", "--config", "hooks.toml"]);
    assert!(out.contains("requests net:http:127.0.0.1:9\n             net:http:127.0.0.1:9: granted by the config"), "{out}");
    w.write("hooks.toml", config(""));
    let out = w.ok(&["bundle", "inspect", "g-1.1.0.hhb", "--config", "hooks.toml"]);
    assert!(out.contains("net:http:127.0.0.1:9: not granted (to let it: \"acme/guard:guard.wasm\" = [\"net:http:127.0.0.1:9\"] under [grants])"), "{out}");
}
