use super::trust::{self, Policy};
use super::*;
use hookhost_config::{ConfigFile, TrustConfig, TrustKey};
use std::path::Path;

const PLUGIN: &[u8] = b"\0asm pretend component bytes";

fn manifest_for(name: &str, version: &str, files: &[(&str, &[u8])]) -> Manifest {
    Manifest {
        schema: SCHEMA,
        name: name.into(),
        version: version.into(),
        description: "test".into(),
        min_hookhost: "0.1.0".into(),
        wit: hookhost_types::WIT_PACKAGE.into(),
        plugins: files.iter().map(|(f, b)| PluginEntry { file: f.to_string(), sha256: sha256_hex(b), size: b.len() as u64, capabilities: vec![] }).collect(),
        hooks: vec![toml::from_str(&format!("event = \"pre_tool_use\"\nid = \"guard\"\nexecutor = {{ plugin = '{}' }}", files[0].0)).unwrap()],
    }
}

fn parts_of(m: &Manifest, files: &[(&str, &[u8])]) -> Parts {
    Parts { manifest: serde_json::to_vec_pretty(m).unwrap(), files: files.iter().map(|(f, b)| (f.to_string(), b.to_vec())).collect() }
}

fn bundle(name: &str, version: &str) -> Bundle {
    let files: &[(&str, &[u8])] = &[("guard.wasm", PLUGIN)];
    Bundle::from_parts(parts_of(&manifest_for(name, version, files), files), "test").unwrap()
}

struct Key {
    secret: String,
    public: String,
    id: String,
}

fn key() -> Key {
    let (secret, public, id) = trust::generate_key("test").unwrap();
    Key { secret, public, id }
}

fn policy(keys: &[(&Key, &[&str])], min_signers: Option<u32>) -> Policy {
    let config = TrustConfig {
        rules: hookhost_config::SigningRules { require_signed: true, min_signers: min_signers.unwrap_or(1) as usize },
        keys: keys.iter().enumerate().map(|(i, (k, allow))| TrustKey { at: format!("trust.keys[{i}]"), name: None, text: k.public.clone(), allow: allow.iter().map(|s| s.to_string()).collect() }).collect(),
        revoke_other_keys: false,
    };
    Policy::from_config(&config).unwrap()
}

fn sign(b: &Bundle, k: &Key) -> String {
    trust::sign(b, &k.secret, None).unwrap().0
}

fn refused(result: Result<impl std::fmt::Debug, BundleError>) -> String {
    result.expect_err("must be refused").to_string()
}

/// A raw tar entry whose name is written byte for byte (the tar crate refuses `..` itself).
fn raw_entry(out: &mut tar::Builder<Vec<u8>>, name: &[u8], kind: tar::EntryType, size: u64, data: &[u8]) {
    let mut h = tar::Header::new_old();
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.set_entry_type(kind);
    h.set_mode(0o644);
    h.set_size(size);
    h.set_cksum();
    out.append(&h, data).unwrap();
}

fn archive_with(extra: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
    let b = bundle("acme/guard", "1.0.0");
    let mut out = tar::Builder::new(Vec::new());
    raw_entry(&mut out, MANIFEST_FILE.as_bytes(), tar::EntryType::Regular, b.parts.manifest.len() as u64, &b.parts.manifest);
    raw_entry(&mut out, b"guard.wasm", tar::EntryType::Regular, PLUGIN.len() as u64, PLUGIN);
    extra(&mut out);
    out.into_inner().unwrap()
}

#[test]
fn the_same_contents_give_the_same_archive_bytes() {
    let a = bundle("acme/guard", "1.0.0").archive();
    let b = bundle("acme/guard", "1.0.0").archive();
    assert_eq!(a, b);
    let back = read_archive(&a, "a.hhb").unwrap();
    assert_eq!(back, bundle("acme/guard", "1.0.0").parts);
    assert_ne!(a, bundle("acme/guard", "1.0.1").archive());
}

#[test]
fn a_flipped_byte_in_a_plugin_is_refused() {
    let mut b = bundle("acme/guard", "1.0.0");
    b.parts.files.get_mut("guard.wasm").unwrap()[3] ^= 1;
    let msg = refused(Bundle::from_parts(b.parts, "g.hhb"));
    assert!(msg.starts_with("g.hhb (acme/guard@1.0.0): \"guard.wasm\" has sha256 "), "{msg}");
    assert!(msg.ends_with("the file was altered"), "{msg}");
}

#[test]
fn manifest_file_list_must_match_the_archive() {
    let files: &[(&str, &[u8])] = &[("guard.wasm", PLUGIN)];
    // Listed twice.
    let mut m = manifest_for("acme/guard", "1.0.0", files);
    m.plugins.push(m.plugins[0].clone());
    let msg = refused(Bundle::from_parts(parts_of(&m, files), "g.hhb"));
    assert_eq!(msg, "g.hhb: manifest plugins[1].file: \"guard.wasm\" is listed twice; list each file once");
    // A file the manifest omits.
    let m = manifest_for("acme/guard", "1.0.0", files);
    let mut parts = parts_of(&m, files);
    parts.files.insert("extra.wasm".into(), b"x".to_vec());
    let msg = refused(Bundle::from_parts(parts, "g.hhb"));
    assert_eq!(msg, "g.hhb (acme/guard@1.0.0): holds \"extra.wasm\", which the manifest does not list; every file must be listed with its sha256");
    // A listed file that is missing.
    let mut parts = parts_of(&m, files);
    parts.files.clear();
    let msg = refused(Bundle::from_parts(parts, "g.hhb"));
    assert_eq!(msg, "g.hhb (acme/guard@1.0.0): the manifest lists \"guard.wasm\", which the bundle does not hold");
}

#[test]
fn manifest_paths_outside_the_bundle_are_refused() {
    for (path, why) in [("../evil.wasm", "points outside the bundle ('..')"), ("/etc/evil.wasm", "is absolute; bundle paths are relative to the bundle"), ("a/../../b.wasm", "points outside the bundle ('..')"), ("a\\b.wasm", "contains a backslash or NUL; use '/'-separated relative paths")] {
        let files: &[(&str, &[u8])] = &[(path, PLUGIN)];
        let m = manifest_for("acme/guard", "1.0.0", files);
        let msg = refused(Bundle::from_parts(parts_of(&m, files), "g.hhb"));
        assert_eq!(msg, format!("g.hhb: manifest plugins[0].file: {path:?} {why}"));
    }
}

#[test]
fn archive_entries_outside_the_bundle_or_not_files_are_refused() {
    let msg = refused(read_archive(&archive_with(|t| raw_entry(t, b"../evil", tar::EntryType::Regular, 1, b"x")), "g.hhb"));
    assert_eq!(msg, "g.hhb: entry \"../evil\" points outside the bundle ('..')");
    let msg = refused(read_archive(&archive_with(|t| raw_entry(t, b"/etc/passwd", tar::EntryType::Regular, 1, b"x")), "g.hhb"));
    assert_eq!(msg, "g.hhb: entry \"/etc/passwd\" is absolute; bundle paths are relative to the bundle");
    let msg = refused(read_archive(&archive_with(|t| raw_entry(t, b"link.wasm", tar::EntryType::Symlink, 0, b"")), "g.hhb"));
    assert_eq!(msg, "g.hhb: entry \"link.wasm\" is a symlink; a bundle holds regular files only");
    let msg = refused(read_archive(&archive_with(|t| raw_entry(t, b"hard.wasm", tar::EntryType::Link, 0, b"")), "g.hhb"));
    assert_eq!(msg, "g.hhb: entry \"hard.wasm\" is a hard link; a bundle holds regular files only");
    let msg = refused(read_archive(&archive_with(|t| raw_entry(t, b"guard.wasm", tar::EntryType::Regular, 1, b"x")), "g.hhb"));
    assert_eq!(msg, "g.hhb: entry \"guard.wasm\" appears twice; an archive holds each file once");
}

#[test]
fn archive_bombs_are_refused_before_reading() {
    // Declared: a header claiming 100 GiB is refused from the header alone.
    let msg = refused(read_archive(&archive_with(|t| raw_entry(t, b"big.wasm", tar::EntryType::Regular, 100 << 30, b"")), "g.hhb"));
    assert_eq!(msg, format!("g.hhb: entry \"big.wasm\" declares {} bytes, over the {MAX_FILE_BYTES}-byte cap", 100u64 << 30));
    // Actual: an archive larger than the cap is refused before parsing.
    let huge = vec![0u8; (MAX_BUNDLE_BYTES + (2 << 20)) as usize];
    let msg = refused(read_archive(&huge, "g.hhb"));
    assert!(msg.starts_with(&format!("g.hhb: the archive is {} bytes, over the {MAX_BUNDLE_BYTES}-byte cap", huge.len())), "{msg}");
    // Many entries each under the cap, over the total.
    let chunk = vec![0u8; (MAX_FILE_BYTES - 1) as usize];
    let msg = refused(read_archive(
        &archive_with(|t| {
            for i in 0..3 {
                raw_entry(t, format!("c{i}.wasm").as_bytes(), tar::EntryType::Regular, chunk.len() as u64, &chunk);
            }
        }),
        "g.hhb",
    ));
    assert!(msg.contains("over the") && msg.starts_with("g.hhb: "), "{msg}");
    // A manifest declaring a file larger than the cap.
    let files: &[(&str, &[u8])] = &[("guard.wasm", PLUGIN)];
    let mut m = manifest_for("acme/guard", "1.0.0", files);
    m.plugins[0].size = MAX_FILE_BYTES + 1;
    let msg = refused(Bundle::from_parts(parts_of(&m, files), "g.hhb"));
    assert_eq!(msg, format!("g.hhb: manifest plugins[0].size: declares {} bytes, over the {MAX_FILE_BYTES}-byte cap per file", MAX_FILE_BYTES + 1));
}

#[test]
fn a_truncated_or_foreign_archive_is_refused() {
    let a = bundle("acme/guard", "1.0.0").archive();
    let msg = refused(read_archive(&a[..700], "g.hhb"));
    assert!(msg.starts_with("g.hhb: "), "{msg}");
    let msg = refused(read_archive(&archive_with(|_| {})[1024..], "g.hhb"));
    assert!(msg.contains("no manifest.json") || msg.contains("truncated"), "{msg}");
}

#[test]
fn a_signed_bundle_verifies_under_a_trusting_policy() {
    let k = key();
    let b = bundle("acme/guard", "1.0.0");
    let signers = policy(&[(&k, &["acme/*"])], None).check(&b, &[sign(&b, &k)], "g.hhb").unwrap();
    assert_eq!(signers, vec![k.id.clone()]);
}

#[test]
fn a_flipped_byte_in_the_manifest_or_signature_is_refused() {
    let k = key();
    let b = bundle("acme/guard", "1.0.0");
    let sig = sign(&b, &k);
    let p = policy(&[(&k, &["acme/*"])], None);
    // The manifest: one byte of the description changes (still valid JSON, same name@version).
    let text = String::from_utf8(b.parts.manifest.clone()).unwrap().replace("\"test\"", "\"tesu\"");
    let altered = Bundle::from_parts(Parts { manifest: text.into_bytes(), files: b.parts.files.clone() }, "g.hhb").unwrap();
    let msg = refused(p.check(&altered, std::slice::from_ref(&sig), "g.hhb"));
    assert_eq!(msg, format!("g.hhb (acme/guard@1.0.0): the manifest is not the one key {} ({}) signed (it signed {}, this manifest is {}): the manifest was altered after signing, or this is another build of the same version; nothing was loaded", k.id, k.id, b.manifest_digest, altered.manifest_digest));
    // The signature: a byte of the Ed25519 signature itself.
    let mut lines: Vec<String> = sig.lines().map(String::from).collect();
    let mut sigline: Vec<u8> = lines[1].clone().into_bytes();
    sigline[40] = if sigline[40] == b'A' { b'B' } else { b'A' };
    lines[1] = String::from_utf8(sigline).unwrap();
    let msg = refused(p.check(&b, &[lines.join("\n") + "\n"], "g.hhb"));
    assert!(msg.contains("does not verify against the manifest"), "{msg}");
    // The trusted comment: names another bundle now, and is not what was signed.
    let msg = refused(p.check(&b, &[sig.replace("hookhost-bundle acme", "hookhost-bundle acmf")], "g.hhb"));
    assert!(msg.contains("was made for \"acmf/guard@1.0.0"), "{msg}");
    // The trusted comment edited to itself after a manifest change: the global signature fails.
    let msg = refused(p.check(&altered, &[sig.replace(&b.manifest_digest, &altered.manifest_digest)], "g.hhb"));
    assert!(msg.contains("does not verify against the manifest"), "{msg}");
}

/// A key whose 8-byte key id is copied from `like`: key ids are not secret, anyone can make one.
fn key_with_id_of(like: &Key) -> Key {
    let k = key();
    let mut bytes = trust::parse_public_key(&k.public).unwrap().to_bytes();
    let theirs = trust::parse_public_key(&like.public).unwrap();
    bytes[2..10].copy_from_slice(theirs.keynum());
    Key { public: minisign::PublicKey::from_bytes(&bytes).unwrap().to_base64(), id: like.id.clone(), secret: k.secret }
}

#[test]
fn every_trusted_key_with_the_signatures_key_id_is_tried() {
    let real = key();
    let impostor = key_with_id_of(&real);
    let b = bundle("acme/guard", "1.0.0");
    let sig = sign(&b, &real);
    // The impostor is listed first and trusted for everything: the real key still verifies.
    let p = policy(&[(&impostor, &["*"]), (&real, &["acme/*"])], None);
    assert_eq!(p.check(&b, std::slice::from_ref(&sig), "g.hhb").unwrap(), vec![real.id.clone()]);
    // And the other way round.
    let p = policy(&[(&real, &["acme/*"]), (&impostor, &["*"])], None);
    assert!(p.check(&b, std::slice::from_ref(&sig), "g.hhb").is_ok());
    // Only keys that fail: the message says all of them were tried, and nothing is "altered".
    let p = policy(&[(&impostor, &["*"]), (&key_with_id_of(&real), &["*"])], None);
    let msg = refused(p.check(&b, &[sig], "g.hhb"));
    assert_eq!(msg, format!("g.hhb (acme/guard@1.0.0): the signature by key {0} ({0}, {0}) does not verify against the manifest with any of the 2 trusted keys that carry this id: it was made by another key with the same id, or the manifest or the signature was altered; nothing was loaded", real.id));
}

#[test]
fn trust_rules_name_the_rule_and_the_key() {
    let k = key();
    let other = key();
    let b = bundle("acme/guard", "1.0.0");
    // A valid signature by a key the policy does not list.
    let msg = refused(policy(&[(&k, &["acme/*"])], None).check(&b, &[sign(&b, &other)], "g.hhb"));
    assert_eq!(msg, format!("g.hhb (acme/guard@1.0.0): is signed only by key {}, which trust.keys does not list; add its public key to [[trust.keys]] if you trust it", other.id));
    // A trusted key outside its namespace.
    let msg = refused(policy(&[(&k, &["other/*"])], None).check(&b, &[sign(&b, &k)], "g.hhb"));
    assert_eq!(msg, format!("g.hhb (acme/guard@1.0.0): key {} ({}) is trusted only for [other/*] (trust.keys[0].allow), not for acme/guard; use a key trusted for this namespace", k.id, k.id));
    // No signature under require_signed.
    let msg = refused(policy(&[(&k, &["acme/*"])], None).check(&b, &[], "g.hhb"));
    assert_eq!(msg, "g.hhb (acme/guard@1.0.0): is not signed, and trust.require_signed is on; sign it with a key listed in trust.keys, or set require_signed = false for unsigned development bundles");
    // Too few signers: one trusted signer of two required (a second signature by the same key
    // does not count twice).
    let msg = refused(policy(&[(&k, &["acme/*"]), (&other, &["acme/*"])], Some(2)).check(&b, &[sign(&b, &k), sign(&b, &k)], "g.hhb"));
    assert_eq!(msg, format!("g.hhb (acme/guard@1.0.0): has 1 trusted signer(s) ({}), but trust.min_signers requires 2", k.id));
    let two = policy(&[(&k, &["acme/*"]), (&other, &["acme/*"])], Some(2)).check(&b, &[sign(&b, &k), sign(&b, &other)], "g.hhb").unwrap();
    assert_eq!(two.len(), 2);
}

#[test]
fn a_signature_for_another_bundle_or_version_is_refused_as_replayed() {
    let k = key();
    let p = policy(&[(&k, &["acme/*"])], None);
    let current = bundle("acme/guard", "1.1.0");
    for signed in [bundle("acme/guard", "1.0.0"), bundle("acme/other", "1.1.0")] {
        let sig = sign(&signed, &k);
        let msg = refused(p.check(&current, &[sig], "g.hhb"));
        let want = format!("the signature by key {} ({}) was made for \"{} {}\", not for this bundle (acme/guard@1.1.0 {})", k.id, k.id, signed.manifest.id(), signed.manifest_digest, current.manifest_digest);
        assert!(msg.contains(&want), "{msg}\nwant {want}");
        assert!(msg.contains("(replayed)"), "{msg}");
    }
}

#[test]
fn unsigned_bundles_load_only_when_signing_is_off() {
    let b = bundle("acme/guard", "1.0.0");
    let unsigned_ok = hookhost_config::SigningRules { require_signed: false, min_signers: 1 };
    let off = Policy { rules: unsigned_ok, ..Policy::default() };
    assert_eq!(off.check(&b, &[], "g.hhb").unwrap(), Vec::<String>::new());
    // Off does not excuse a tampered signature.
    let k = key();
    let p = Policy { rules: unsigned_ok, ..policy(&[(&k, &["acme/*"])], None) };
    let sig = sign(&bundle("acme/guard", "0.9.0"), &k);
    assert!(refused(p.check(&b, &[sig], "g.hhb")).contains("(replayed)"));
}

#[test]
fn trust_config_problems_name_the_field() {
    let text = "[trust]\nmin_signers = 0\n[[trust.keys]]\npublic_key = \"nope\"\nallow = [\"acme/*\"]\n[[trust.keys]]\npublic_key = \"RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3\"\nallow = [\"Bad Pattern\"]\n[[trust.keys]]\nallow = []\n";
    let problems = ConfigFile::parse(text, Path::new("h.toml"), Path::new(".")).unwrap_err().problems;
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert_eq!(problems[0].field, "trust.keys[1].allow");
    assert_eq!(problems[0].to_string(), "trust.keys[1].allow: \"Bad Pattern\" is not a bundle-name pattern; use \"namespace/name\", \"namespace/*\" or \"*\"");
    assert_eq!(problems[1].to_string(), "trust.keys[2]: give exactly one of public_key (the base64 line of a minisign .pub file) or public_key_file");
    assert_eq!(problems[2].to_string(), "trust.min_signers: must be at least 1 (turn signing off with require_signed = false)");
    // The key text is read as a minisign key when bundles resolve.
    let config = ConfigFile::parse("[trust]\n[[trust.keys]]\npublic_key = \"nope\"\nallow = [\"acme/*\"]\n", Path::new("h.toml"), Path::new(".")).unwrap();
    let problems = Policy::from_config(&config.trust).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].field, "trust.keys[0].public_key", "{problems:?}");
    assert!(problems[0].message.starts_with("not a minisign public key"), "{problems:?}");
}

#[test]
fn a_corrupt_store_blob_is_reported_not_returned() {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::new(dir.path());
    let b = bundle("acme/guard", "1.0.0");
    let artifact = store::Artifact::of(&b, &[]);
    let digest = store.put(&artifact, Some("acme/guard:1.0.0")).unwrap();
    assert_eq!(digest, artifact.digest());
    assert_eq!(store.resolve("acme/guard:1.0.0").unwrap().as_deref(), Some(digest.as_str()));
    assert_eq!(store.get(&digest).unwrap().blobs, artifact.blobs);
    use std::os::unix::fs::PermissionsExt;
    for f in [dir.path().join("index.json"), dir.path().join("blobs/sha256").join(digest.trim_start_matches("sha256:"))] {
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o644, "{}", f.display());
    }
    let plugin = dir.path().join("blobs/sha256").join(sha256_hex(PLUGIN));
    let mut bytes = std::fs::read(&plugin).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&plugin, bytes).unwrap();
    match store.get(&digest) {
        Err(e) if e.kind() == ErrorKind::Integrity => assert!(e.message().ends_with("does not match its digest (the file was altered or damaged)"), "{e}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    // Putting it again repairs it.
    store.put(&artifact, None).unwrap();
    assert!(store.get(&digest).is_ok());
}

#[test]
fn manifest_problems_are_all_reported() {
    let files: &[(&str, &[u8])] = &[("guard.wasm", PLUGIN)];
    let mut m = manifest_for("Acme", "one", files);
    m.min_hookhost = "99.0.0".into();
    m.wit = "hookhost:hooks@9.9.9".into();
    m.plugins[0].capabilities = vec!["net:any".into()];
    m.hooks[0].executor.plugin = "missing.wasm".into();
    let msg = refused(Bundle::from_parts(parts_of(&m, files), "g.hhb"));
    for want in [
        "g.hhb: manifest has 6 problems:",
        "name: \"Acme\" is not namespace/name",
        "version: \"one\" is not a semantic version",
        "min_hookhost: the bundle needs hookhost 99.0.0 or newer",
        "wit: the bundle was built for hookhost:hooks@9.9.9; this hookhost serves hookhost:hooks@0.1.0, hookhost:hooks@0.2.0 and hookhost:hooks@0.3.0",
        "plugins[0].capabilities: unknown capability \"net:any\"",
        "hooks[0].executor.plugin: \"missing.wasm\" is neither a file listed in plugins nor builtin:<name>",
    ] {
        assert!(msg.contains(want), "missing {want:?} in:\n{msg}");
    }
}

#[test]
fn packing_does_not_follow_a_symlink_out_of_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("secret.txt");
    std::fs::write(&outside, "not for the bundle").unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::os::unix::fs::symlink(&outside, src.join("guard.wasm")).unwrap();
    std::fs::write(src.join(SOURCE_FILE), "name = \"acme/guard\"\nversion = \"1.0.0\"\n[[plugins]]\nfile = \"guard.wasm\"\n").unwrap();
    let msg = refused(pack(&src));
    assert!(msg.contains("plugins[0].file: cannot read \"guard.wasm\" inside"), "{msg}");
    // And `..` in bundle.toml never reads outside either.
    std::fs::write(src.join(SOURCE_FILE), "name = \"acme/guard\"\nversion = \"1.0.0\"\n[[plugins]]\nfile = \"../secret.txt\"\n").unwrap();
    let msg = refused(pack(&src));
    assert!(msg.ends_with("plugins[0].file: \"../secret.txt\" points outside the bundle ('..')"), "{msg}");
}

#[test]
fn refusals_have_kinds_an_embedder_can_match() {
    let b = bundle("acme/guard", "1.0.0");
    let k = key();
    let p = policy(&[(&k, &["acme/*"])], None);
    assert_eq!(p.check(&b, &[], "g.hhb").unwrap_err().kind(), ErrorKind::Unsigned);
    let stranger = key();
    assert_eq!(p.check(&b, &[sign(&b, &stranger)], "g.hhb").unwrap_err().kind(), ErrorKind::Untrusted);
    let elsewhere = policy(&[(&k, &["other/*"])], None);
    assert_eq!(elsewhere.check(&b, &[sign(&b, &k)], "g.hhb").unwrap_err().kind(), ErrorKind::Untrusted);
    let mut parts = b.parts.clone();
    parts.files.get_mut("guard.wasm").unwrap()[0] ^= 1;
    assert_eq!(Bundle::from_parts(parts, "g.hhb").unwrap_err().kind(), ErrorKind::Integrity);
    assert_eq!(read_archive(b"not a tar", "g.hhb").unwrap_err().kind(), ErrorKind::Invalid);
    let missing = store::Store::new(tempfile::tempdir().unwrap().path().join("empty")).get(&format!("sha256:{}", "0".repeat(64))).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
}
