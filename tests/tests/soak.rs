//! A short run of the soak (the full one is `cargo run --release -p hookhost-tests --example
//! soak`): good and hostile hooks dispatched concurrently, every decision checked, no leftover
//! processes or descriptors.

use std::time::Duration;

#[test]
fn a_short_soak_decides_everything_right_and_leaks_nothing() {
    assert!(hookhost_tests::have("bash"));
    let report = hookhost_tests::soak::run(Duration::from_secs(3), 8, 2);
    println!("{report}");
    assert!(report.wrong.is_empty(), "{report}");
    assert_eq!(report.checked, report.dispatches, "{report}");
    // Every case ran, several times.
    assert!(report.per_case.iter().all(|(_, n)| *n >= 2), "{report}");
    assert_eq!(report.leftover_processes, 0, "{report}");
    assert!(report.fds_end <= report.fds_start, "{report}");
}
