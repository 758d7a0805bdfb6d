//! Shared by the binary's test files.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Run `hookhost` as `configure` sets it up, with `stdin` as its input; its output.
pub fn hookhost_with(configure: impl FnOnce(&mut Command), stdin: &[u8]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    configure(&mut cmd);
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn hookhost");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// A successful run's stdout as JSON (the test fails with hookhost's stderr otherwise).
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}
