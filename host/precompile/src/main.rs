//! `hookhost-precompile compile OUT_DIR NAME=COMPONENT...`: compile each component with
//! hookhost's compiler settings ([`compile_settings`], the same file the host uses) and write
//! `OUT_DIR/NAME.cwasm.zst`, the zstd-compressed code, for the host to embed. Run by the host's
//! build script in release builds.
//!
//! `hookhost-precompile preinit COMPONENT...`: pre-initialise each component that exports
//! `wizer-initialize` ([`preinit`]), replacing the file by its pre-initialised form (the others
//! are left as they are): how the checked-in bash adapter of `host/builtins/` is made
//! (`tests/builtins.rs`).
//!
//! At load, wasmtime's own compatibility check decides whether the embedded code suits the
//! running machine (same wasmtime, same settings, a CPU with the features it was compiled for);
//! when it does not, hookhost compiles as it would without it.

#[path = "../../src/compile_settings.rs"]
mod compile_settings;
mod preinit;

use std::path::PathBuf;
use std::process::ExitCode;

/// zstd level: the bash adapter's 40 MiB of code shrink to about a third in a third of a second
/// (higher levels gain a few percent for seconds of build time).
const LEVEL: i32 = 3;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hookhost-precompile: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let usage = "usage: hookhost-precompile compile OUT_DIR NAME=COMPONENT... | hookhost-precompile preinit COMPONENT...";
    let mut args = std::env::args_os().skip(1);
    let command = args.next().ok_or(usage)?;
    let mut cfg = wasmtime::Config::new();
    compile_settings::compile_settings(&mut cfg);
    let engine = wasmtime::Engine::new(&cfg).map_err(|e| format!("cannot create the engine: {e:#}"))?;
    match command.to_str() {
        Some("preinit") => {
            for path in args {
                let path = PathBuf::from(path);
                let bytes = std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
                if !preinit::wants_preinit(&bytes).map_err(|e| format!("{}: {e}", path.display()))? {
                    continue;
                }
                let started = std::time::Instant::now();
                let bytes = preinit::preinit(&engine, &bytes).map_err(|e| format!("pre-initialising {}: {e}", path.display()))?;
                std::fs::write(&path, &bytes).map_err(|e| format!("writing {}: {e}", path.display()))?;
                eprintln!("hookhost-precompile: {}: pre-initialised through `{}` in {:.1} s", path.display(), preinit::INIT, started.elapsed().as_secs_f64());
            }
            Ok(())
        }
        Some("compile") => {
            let out = PathBuf::from(args.next().ok_or(usage)?);
            for arg in args {
                let arg = arg.to_string_lossy().into_owned();
                let (name, path) = arg.split_once('=').ok_or_else(|| format!("{arg:?} is not NAME=COMPONENT"))?;
                let bytes = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
                let started = std::time::Instant::now();
                let code = engine.precompile_component(&bytes).map_err(|e| format!("compiling {path}: {e:#}"))?;
                let packed = zstd::bulk::compress(&code, LEVEL).map_err(|e| format!("compressing {name}: {e}"))?;
                let file = out.join(format!("{name}.cwasm.zst"));
                std::fs::write(&file, &packed).map_err(|e| format!("writing {}: {e}", file.display()))?;
                eprintln!("hookhost-precompile: {name}: {} KiB of code ({} KiB packed) in {:.1} s", code.len() >> 10, packed.len() >> 10, started.elapsed().as_secs_f64());
            }
            Ok(())
        }
        _ => Err(usage.to_string()),
    }
}
