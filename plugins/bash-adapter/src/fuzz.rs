//! The body of the `dialect_output` fuzz target (`fuzz/`), here so the adapter's own tests run
//! it over the corpus too. Not a stable API.
//!
//! Input layout: byte 0 picks the dialect, byte 1 the exit (codes 0, 1, 2, 126, 127, a signal,
//! a timeout), byte 2 the event; the rest is stdout, then (after the first NUL) stderr.

use crate::dialect::{Dialect, Exit, Run};
use crate::verdict::interpret;
use hookhost_sdk::prelude::*;

pub fn dialect_output(data: &[u8]) {
    let [d, x, e, rest @ ..] = data else { return };
    let dialect = Dialect::ALL[usize::from(*d) % Dialect::ALL.len()];
    let exit = match x % 7 {
        0 => Exit::Code(0),
        1 => Exit::Code(1),
        2 => Exit::Code(2),
        3 => Exit::Code(126),
        4 => Exit::Code(127),
        5 => Exit::Signal(9),
        _ => Exit::TimedOut,
    };
    let event = match e % 5 {
        0 => Event::pre_tool_use("bash", json!({"command": "ls"})),
        1 => Event::post_tool_use("bash", json!({"command": "ls"}), json!("out")),
        2 => Event::user_prompt("hello"),
        3 => Event::Stop(Default::default()),
        _ => Event::SessionStart { source: None },
    };
    let (stdout, stderr) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let run = Run { exit, stdout: String::from_utf8_lossy(stdout).into_owned(), stderr: String::from_utf8_lossy(stderr).into_owned() };
    if let Ok(decision) = interpret(dialect, &event, &run) {
        // Whatever the script printed, the decision only carries effects the event accepts.
        assert!(decision.effects.iter().all(|effect| event.accepts(effect)), "{decision:?}");
    }
}
