//! Tests of `loadtest.rs`.

use super::*;

#[test]
fn every_answer_is_checked() {
    let cases = mix();
    let pass = &cases[0];
    assert_eq!(judge(pass, 200, br#"{"decision":"pass"}"#), Ok(()));
    assert_eq!(judge(pass, 200, br#"{"decision":"block"}"#), Err("decision \"block\" (expected pass)".into()));
    assert_eq!(judge(pass, 503, b"busy"), Err("HTTP 503: busy".into()));
    let deny = &cases[3];
    assert!(judge(deny, 200, b"{}").is_err(), "a pass where a deny is expected");
    assert_eq!(judge(deny, 200, br#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#), Ok(()));
    let redact = &cases[8];
    assert!(judge(redact, 200, br#"{"decision":"pass","patch":{}}"#).is_err(), "a secret left in place");
}

#[test]
fn a_run_fails_on_any_lost_request_leak_or_unrefused_input() {
    let good = Report {
        requests: 10, clients: 1, wrong: 0, first_wrong: vec![], seconds: 1.0, requests_per_second: 10.0, p50_us: 1.0, p99_us: 1.0,
        reloads_ok: 2, reloads_failed: 1,
        malformed: vec![("oversized body".into(), "HTTP 413".into()), ("not JSON".into(), "HTTP 400".into()), ("truncated body".into(), "client hung up".into()), ("slow headers".into(), "closed by the daemon".into())],
        rss_kib_before: 100_000, rss_kib_after: 110_000, fds_before: 17, fds_after: 18,
    };
    assert!(good.failures(3).is_empty(), "{:?}", good.failures(3));
    let bad = Report { wrong: 2, fds_after: 40, rss_kib_after: 200_000, reloads_failed: 0, malformed: vec![("oversized body".into(), "HTTP 200".into())], ..good };
    assert_eq!(bad.failures(3).len(), 8, "{:?}", bad.failures(3));
}
