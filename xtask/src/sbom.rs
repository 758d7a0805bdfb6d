//! The software bill of materials of one target's binaries: a CycloneDX 1.5 JSON document
//! (<https://cyclonedx.org/docs/1.5/json/>) listing every crate compiled into `hookhost` and
//! `hookhost-send` for that target (`cargo metadata --filter-platform`, normal dependencies
//! only: build scripts, proc macros' own dependencies and dev-dependencies are not in the binary)
//! with its version, licence and the SHA-256 `Cargo.lock` pins, and the built-in plugin
//! components embedded in it (`host/builtins/MANIFEST`).
//!
//! `cargo metadata` resolves features for the whole workspace at once, so an optional
//! dependency that only another member's features switch on is listed too: the list may hold a
//! crate more than the binary, never one less.

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The package whose binaries a release ships.
const ROOT_PACKAGE: &str = "hookhost-cli";

/// The SBOM document for `target`, deterministic for a given source tree and `Cargo.lock`.
pub fn cyclonedx(root: &Path, target: &str, version: &str, commit: &str, timestamp: &str) -> Result<Vec<u8>> {
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args(["metadata", "--format-version", "1", "--locked", "--filter-platform", target])
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata --filter-platform {target} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let metadata: Value = serde_json::from_slice(&out.stdout).context("reading cargo metadata's output")?;
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let builtins = std::fs::read_to_string(root.join("host/builtins/MANIFEST")).context("reading host/builtins/MANIFEST")?;
    document(&metadata, &lock, &builtins, version, commit, timestamp)
}

fn document(metadata: &Value, lock: &str, builtins: &str, version: &str, commit: &str, timestamp: &str) -> Result<Vec<u8>> {
    let packages: BTreeMap<&str, &Value> = metadata["packages"].as_array().context("cargo metadata: no packages")?.iter().filter_map(|p| Some((p["id"].as_str()?, p))).collect();
    let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"].as_array().context("cargo metadata: no resolve graph")?.iter().filter_map(|n| Some((n["id"].as_str()?, n))).collect();
    let root_id = packages.iter().find(|(_, p)| p["name"] == ROOT_PACKAGE).map(|(id, _)| *id).with_context(|| format!("cargo metadata: no package {ROOT_PACKAGE}"))?;
    let checksums = lock_checksums(lock)?;

    // Everything the root reaches through normal dependencies, with each one's own edges.
    let mut reached: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut todo = vec![root_id];
    while let Some(id) = todo.pop() {
        if reached.contains_key(id) {
            continue;
        }
        let node = nodes.get(id).with_context(|| format!("cargo metadata: {id} is not in the resolve graph"))?;
        let mut edges = BTreeSet::new();
        for dep in node["deps"].as_array().into_iter().flatten() {
            let normal = dep["dep_kinds"].as_array().into_iter().flatten().any(|k| k["kind"].is_null());
            if let (true, Some(pkg)) = (normal, dep["pkg"].as_str()) {
                edges.insert(pkg);
                todo.push(pkg);
            }
        }
        reached.insert(id, edges);
    }

    let bom_ref = |id: &str| -> String {
        let p = packages[id];
        format!("{}@{}", p["name"].as_str().unwrap_or("?"), p["version"].as_str().unwrap_or("?"))
    };
    let mut components = Vec::new();
    for id in reached.keys().filter(|id| **id != root_id) {
        let p = packages[id];
        let (name, ver) = (p["name"].as_str().unwrap_or_default(), p["version"].as_str().unwrap_or_default());
        let mut c = json!({ "type": "library", "bom-ref": bom_ref(id), "name": name, "version": ver });
        if let Some(l) = p["license"].as_str() {
            c["licenses"] = json!([{ "expression": l }]);
        }
        if p["source"].as_str().is_some_and(|s| s.starts_with("registry+")) {
            c["purl"] = json!(format!("pkg:cargo/{name}@{ver}"));
            if let Some(sum) = checksums.get(&(name.to_string(), ver.to_string())) {
                c["hashes"] = json!([{ "alg": "SHA-256", "content": sum }]);
            }
        }
        if let Some(d) = p["description"].as_str() {
            c["description"] = json!(d);
        }
        components.push(c);
    }
    let mut embedded = Vec::new();
    for line in builtins.lines() {
        if let ["builtin", name, digest, file] = line.split_whitespace().collect::<Vec<_>>()[..] {
            embedded.push(format!("builtin:{name}"));
            components.push(json!({
                "type": "file", "bom-ref": format!("builtin:{name}"), "name": file,
                "description": format!("the built-in plugin {name}, a WebAssembly component embedded in hookhost"),
                "hashes": [{ "alg": "SHA-256", "content": digest }],
            }));
        }
    }
    if embedded.is_empty() {
        bail!("host/builtins/MANIFEST lists no built-in plugin");
    }
    let mut dependencies: Vec<Value> = reached.iter().map(|(id, edges)| json!({ "ref": bom_ref(id), "dependsOn": edges.iter().map(|e| bom_ref(e)).collect::<Vec<_>>() })).collect();
    if let Some(root) = dependencies.iter_mut().find(|d| d["ref"] == json!(bom_ref(root_id))) {
        root["dependsOn"].as_array_mut().expect("an array").extend(embedded.into_iter().map(Value::from));
    }
    // A serial number that names this document: the same inputs, the same number (RFC 4122
    // layout, the variant and version bits of a name-based UUID).
    let mut h = <sha2::Sha256 as sha2::Digest>::digest(serde_json::to_vec(&(&components, &dependencies, version, commit))?).to_vec();
    h[6] = (h[6] & 0x0f) | 0x50;
    h[8] = (h[8] & 0x3f) | 0x80;
    let hex: String = h[..16].iter().map(|b| format!("{b:02x}")).collect();
    let serial = format!("urn:uuid:{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]);
    let doc = json!({
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "serialNumber": serial,
        "version": 1,
        "metadata": {
            "timestamp": timestamp,
            "component": {
                "type": "application", "bom-ref": bom_ref(root_id), "name": "hookhost", "version": version,
                "licenses": [{ "expression": packages[root_id]["license"].as_str().unwrap_or("Apache-2.0") }],
                "properties": [{ "name": "hookhost:commit", "value": commit }],
            },
        },
        "components": components,
        "dependencies": dependencies,
    });
    let mut bytes = serde_json::to_vec_pretty(&doc)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `Cargo.lock`'s SHA-256 for each registry package, by name and version.
fn lock_checksums(lock: &str) -> Result<BTreeMap<(String, String), String>> {
    let v: toml::Value = toml::from_str(lock).context("reading Cargo.lock")?;
    let mut out = BTreeMap::new();
    for p in v.get("package").and_then(|p| p.as_array()).into_iter().flatten() {
        if let (Some(n), Some(ver), Some(sum)) = (p.get("name").and_then(|x| x.as_str()), p.get("version").and_then(|x| x.as_str()), p.get("checksum").and_then(|x| x.as_str())) {
            out.insert((n.to_string(), ver.to_string()), sum.to_string());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata() -> Value {
        let pkg = |id: &str, name: &str, source: Option<&str>| json!({ "id": id, "name": name, "version": "1.0.0", "license": "MIT", "source": source });
        let dep = |pkg: &str, kind: Option<&str>| json!({ "pkg": pkg, "dep_kinds": [{ "kind": kind }] });
        json!({
            "packages": [
                pkg("cli", "hookhost-cli", None),
                pkg("lib", "serde", Some("registry+https://github.com/rust-lang/crates.io-index")),
                pkg("dev", "jsonschema", Some("registry+https://github.com/rust-lang/crates.io-index")),
                pkg("bld", "cc", Some("registry+https://github.com/rust-lang/crates.io-index")),
            ],
            "resolve": { "nodes": [
                { "id": "cli", "deps": [dep("lib", None), dep("dev", Some("dev")), dep("bld", Some("build"))] },
                { "id": "lib", "deps": [] }, { "id": "dev", "deps": [] }, { "id": "bld", "deps": [] },
            ] },
        })
    }

    const LOCK: &str = "[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\nchecksum = \"abc\"\n";
    const BUILTINS: &str = "sources x\nbuiltin guard-destructive 0123 guard-destructive.wasm\n";

    #[test]
    fn lists_what_the_binary_links_and_embeds_and_nothing_it_does_not() {
        let doc: Value = serde_json::from_slice(&document(&metadata(), LOCK, BUILTINS, "0.1.0", "abc123", "2026-01-01T00:00:00Z").unwrap()).unwrap();
        let names: Vec<&str> = doc["components"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["serde", "guard-destructive.wasm"], "dev and build dependencies are not in the binary");
        assert_eq!(doc["components"][0]["purl"], "pkg:cargo/serde@1.0.0");
        assert_eq!(doc["components"][0]["hashes"][0]["content"], "abc");
        assert_eq!(doc["components"][1]["hashes"][0]["content"], "0123");
        assert_eq!(doc["metadata"]["component"]["version"], "0.1.0");
        let root = doc["dependencies"].as_array().unwrap().iter().find(|d| d["ref"] == "hookhost-cli@1.0.0").unwrap();
        assert_eq!(root["dependsOn"], json!(["serde@1.0.0", "builtin:guard-destructive"]));
    }

    #[test]
    fn the_same_inputs_give_the_same_document() {
        let a = document(&metadata(), LOCK, BUILTINS, "0.1.0", "abc123", "2026-01-01T00:00:00Z").unwrap();
        let b = document(&metadata(), LOCK, BUILTINS, "0.1.0", "abc123", "2026-01-01T00:00:00Z").unwrap();
        assert_eq!(a, b);
        let c = document(&metadata(), LOCK, BUILTINS, "0.1.1", "abc123", "2026-01-01T00:00:00Z").unwrap();
        let serial = |d: &[u8]| serde_json::from_slice::<Value>(d).unwrap()["serialNumber"].clone();
        assert_ne!(serial(&a), serial(&c));
    }
}
