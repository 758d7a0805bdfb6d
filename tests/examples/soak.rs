//! The soak (see `hookhost_tests::soak`): `cargo run --release -p hookhost-tests --example soak -- [SECONDS] [TASKS]`
//! (defaults: 180 s, 16 tasks). Prints its figures; exits 1 when a decision was wrong or
//! memory, file descriptors or processes grew.

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let arg = |a: Option<String>, default: u64, what: &str| -> Result<u64, String> {
        match a {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("soak: {what} must be a whole number, not {v:?}")),
        }
    };
    let (seconds, tasks) = match (arg(args.next(), 180, "SECONDS"), arg(args.next(), 16, "TASKS")) {
        (Ok(s), Ok(t)) if s > 0 && t > 0 => (s, t),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
        _ => {
            eprintln!("soak: SECONDS and TASKS must be above zero");
            return ExitCode::from(2);
        }
    };
    let report = hookhost_tests::soak::run(Duration::from_secs(seconds), tasks as usize, 2);
    println!("{report}");
    if report.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
