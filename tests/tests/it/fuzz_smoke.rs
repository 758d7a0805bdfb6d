//! A short, deterministic run of each fuzz target (`fuzz/`): every corpus input, and a few
//! hundred mutations of each, through the same function `cargo fuzz` drives. The real runs
//! are `cargo fuzz run <target>` (fuzz/README.md).

use hookhost_tests::mutate::{mutate, Rng};
use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Every file under these repository directories, recursively.
fn corpus(dirs: &[&str]) -> Vec<Vec<u8>> {
    fn walk(dir: &Path, out: &mut Vec<Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = Vec::new();
    for dir in dirs {
        walk(&Path::new(ROOT).join(dir), &mut out);
    }
    assert!(!out.is_empty(), "empty corpus {dirs:?}");
    out
}

/// Every corpus input once, then `budget` mutations spread evenly over the inputs (at least 5
/// each), so a grown corpus does not slow the suite down.
fn smoke(dirs: &[&str], budget: usize, target: impl Fn(&[u8])) -> usize {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut runs = 0;
    let seeds = corpus(dirs);
    let (share, extra) = (budget / seeds.len(), budget % seeds.len());
    for (i, seed) in seeds.iter().enumerate() {
        target(seed);
        for _ in 0..(share + usize::from(i < extra)).max(5) {
            target(&mutate(seed, &mut rng));
            runs += 1;
        }
    }
    runs
}

#[test]
fn config_target() {
    let runs = smoke(&["fuzz/corpus/config", "tests/config", "examples"], 3000, hookhost::fuzz::config);
    assert!(runs >= 3000, "{runs}");
}

#[test]
fn event_target() {
    let runs = smoke(&["fuzz/corpus/event"], 6000, hookhost::fuzz::event);
    assert!(runs >= 6000, "{runs}");
}

#[test]
fn dialect_output_target() {
    let runs = smoke(&["fuzz/corpus/dialect_output"], 8000, bash_adapter::fuzz::dialect_output);
    assert!(runs >= 8000, "{runs}");
}

#[test]
fn bundle_target() {
    let runs = smoke(&["fuzz/corpus/bundle"], 4000, hookhost::fuzz::bundle);
    assert!(runs >= 4000, "{runs}");
}
