//! Builds the built-in plugins (`plugins/*`) from source and embeds them in the binary.

use std::path::PathBuf;

const BUILTINS: &[&str] = &["guard-destructive", "redact-secrets"];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().unwrap().to_path_buf();
    hookhost_guest_build::rerun_if_changed(&[root.join("plugins"), root.join("guest-sdk"), root.join("wit")]);
    let target_dir = hookhost_guest_build::workspace_target_dir(&root).join("guests");
    let built = hookhost_guest_build::build(&root.join("Cargo.toml"), BUILTINS, &target_dir);
    let mut code = String::from("/// Built-in plugins: (name, component bytes).\npub static BUILTINS: &[(&str, &[u8])] = &[\n");
    for (name, path) in built {
        code.push_str(&format!("    ({name:?}, include_bytes!({:?})),\n", path.display().to_string()));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("builtins.rs");
    std::fs::write(out, code).unwrap();
}
