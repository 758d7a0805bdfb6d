//! The guard's wasm shadow stack: 60 KiB instead of the 128 KiB the other built-ins get.
//! Every page of a hook's initial memory is reset before each call (docs/PERFORMANCE.md), so
//! the guard's memory is kept to three pages: 60 KiB of stack, its data (67.7 KiB since the
//! `taint` pack and self-protection of recorded scripts, 304 bytes short of a fourth page;
//! 64.3 KiB after docker-agent's, Antigravity CLI's and Starchild's hook files; 56 KiB once) and
//! the SDK's 64 KiB heap arena — `host/src/builtin.rs` fails when they no longer fit. The shell parser's nesting budget (`MAX_DEPTH` in shell-parse) is what
//! keeps the deepest line it accepts within this stack; `tests/tests/it/lean_guests.rs`
//! runs the deepest of each construct through the built component.
fn main() {
    // Linker arguments given here come after the build's own `-zstack-size` (RUSTFLAGS), and
    // wasm-ld takes the last one. Only for wasm: a native build (the benches' baseline) links
    // with the platform's linker, which may not take it (zig's, for the release builds).
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size=61440");
    }
}
