//! `hookhost-guest-build builtins`: build the built-in plugins from source into the workspace's
//! target directory (`target/guests`), as the check in `host/precompile/tests/builtins.rs`
//! does — so CI can run those nested builds while the workspace compiles, and the check then
//! finds them done.

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() != Some("builtins") || args.next().is_some() {
        eprintln!("usage: hookhost-guest-build builtins   (from anywhere in the workspace)");
        return std::process::ExitCode::from(2);
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let target = hookhost_guest_build::workspace_target_dir(&root);
    for (name, path) in hookhost_guest_build::build_builtins(&root, &target) {
        println!("{name}: {}", path.display());
    }
    std::process::ExitCode::SUCCESS
}
