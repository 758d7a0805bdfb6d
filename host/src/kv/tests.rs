use super::*;

fn scope(user: &str, project: &str, session: &str, hook: &str) -> Scope {
    Scope { user: user.into(), project: project.into(), session: session.into(), hook: hook.into() }
}

/// A deadline for the store's lock that no test waits for.
fn soon() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

fn small() -> StateLimits {
    StateLimits { max_keys: 3, max_key_bytes: 8, max_value_bytes: 10, max_bytes: 30, ttl: Duration::from_secs(100) }
}

#[test]
fn a_value_outlives_its_store_and_each_scope_sees_only_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state").join(FILE_NAME);
    let a = scope("u1", "/p", "s1", "user:guard");
    {
        let store = StateStore::at(&file, StateLimits::default());
        store.set(&a, "k", "v1", None, None).unwrap();
    }
    let store = StateStore::at(&file, StateLimits::default());
    assert_eq!(store.get(&a, "k", None).unwrap().as_deref(), Some("v1"), "a new process reads it");
    for other in [
        scope("u2", "/p", "s1", "user:guard"),
        scope("u1", "/q", "s1", "user:guard"),
        scope("u1", "/p", "s2", "user:guard"),
        scope("u1", "/p", "s1", "user:other"),
    ] {
        assert_eq!(store.get(&other, "k", None).unwrap(), None, "{other:?}");
        assert!(store.keys(&other, "", None).unwrap().is_empty());
        store.set(&other, "k", "theirs", None, None).unwrap();
    }
    assert_eq!(store.get(&a, "k", None).unwrap().as_deref(), Some("v1"), "the others' writes did not touch it");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(file.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
    }
}

#[test]
fn set_get_delete_keys_and_incr() {
    let store = StateStore::in_memory(StateLimits::default());
    let s = scope("u", "/p", "s", "h");
    assert_eq!(store.get(&s, "a", None).unwrap(), None);
    store.set(&s, "b/2", "two", None, None).unwrap();
    store.set(&s, "b/1", "one", None, None).unwrap();
    store.set(&s, "a", "x", None, None).unwrap();
    assert_eq!(store.keys(&s, "b/", None).unwrap(), ["b/1", "b/2"]);
    assert_eq!(store.keys(&s, "", None).unwrap(), ["a", "b/1", "b/2"]);
    store.delete(&s, "a", None).unwrap();
    store.delete(&s, "never-set", None).unwrap();
    assert_eq!(store.get(&s, "a", None).unwrap(), None);
    assert_eq!(store.incr(&s, "n", 5, None, None).unwrap(), 5);
    assert_eq!(store.incr(&s, "n", -7, None, None).unwrap(), -2);
    assert_eq!(store.get(&s, "n", None).unwrap().as_deref(), Some("-2"));
    assert_eq!(store.entries(&s).unwrap(), [("b/1".to_string(), "one".to_string()), ("b/2".into(), "two".into()), ("n".into(), "-2".into())]);
    // A prefix with LIKE's wildcards means itself.
    store.set(&s, "%x", "1", None, None).unwrap();
    assert_eq!(store.keys(&s, "%", None).unwrap(), ["%x"]);
    let err = store.incr(&s, "b/1", 1, None, None).unwrap_err();
    assert_eq!(err, StateError::Invalid("state key \"b/1\" holds \"one\", not an integer: incr cannot add to it".into()));
    store.set(&s, "big", &i64::MAX.to_string(), None, None).unwrap();
    assert!(matches!(store.incr(&s, "big", 1, None, None), Err(StateError::Invalid(m)) if m.contains("overflows")));
    assert_eq!(store.set(&s, "", "v", None, None), Err(StateError::Invalid("a state key cannot be empty".into())));
}

#[test]
fn every_bound_is_an_error_and_writes_nothing() {
    let store = StateStore::in_memory(small());
    let s = scope("u", "/p", "s", "h");
    assert_eq!(store.set(&s, "123456789", "v", None, None), Err(StateError::Quota("state key \"123456789\"… is 9 bytes; the limit is 8".into())));
    assert_eq!(store.set(&s, "k", "12345678901", None, None), Err(StateError::Quota("the value for state key \"k\" is 11 bytes; the limit is 10".into())));
    store.set(&s, "a", "1234567890", None, None).unwrap(); // 11 bytes
    store.set(&s, "b", "1234567890", None, None).unwrap(); // 22
    assert_eq!(
        store.set(&s, "c", "1234567890", None, None),
        Err(StateError::Quota("setting state key \"c\" would bring this hook's state in this session to 33 bytes; the limit is 30".into()))
    );
    assert_eq!(store.get(&s, "c", None).unwrap(), None, "nothing written");
    store.set(&s, "c", "1", None, None).unwrap(); // 24, third key
    assert_eq!(store.set(&s, "d", "1", None, None), Err(StateError::Quota("this hook already keeps 3 state keys in this session; the limit is 3".into())));
    // Replacing a value counts its new size only; another scope has bounds of its own.
    store.set(&s, "a", "1", None, None).unwrap();
    store.set(&s, "c", "123456", None, None).unwrap();
    store.set(&scope("u", "/p", "s", "other"), "d", "1234567890", None, None).unwrap();
    assert!(matches!(store.incr(&s, "d", 1, None, None), Err(StateError::Quota(_))), "incr makes a key too");
    store.delete(&s, "c", None).unwrap();
    assert_eq!(store.incr(&s, "d", 1, None, None).unwrap(), 1, "room again after a delete");
}

#[test]
fn values_expire_and_a_ttl_is_capped_by_the_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let store = StateStore::at(&file, small());
    store.purge_on_writes(false);
    let s = scope("u", "/p", "s", "h");
    store.set(&s, "short", "1", Some(Duration::from_secs(10)), None).unwrap();
    store.set(&s, "long", "1", Some(Duration::from_secs(1_000_000)), None).unwrap();
    store.set(&s, "default", "1", None, None).unwrap();
    store.advance(Duration::from_secs(11));
    assert_eq!(store.get(&s, "short", None).unwrap(), None);
    assert_eq!(store.keys(&s, "", None).unwrap(), ["default", "long"]);
    assert_eq!(store.incr(&s, "short", 1, None, None).unwrap(), 1, "an expired value counts as not set");
    store.advance(Duration::from_secs(101));
    assert!(store.keys(&s, "", None).unwrap().is_empty(), "the host's ttl (100 s) caps a hook's");
    // Expired rows do not count towards the bounds...
    for k in ["a", "b", "c"] {
        store.set(&s, k, "1", None, None).unwrap();
    }
    // ... and are deleted by a write now and then.
    let rows = || StateStore::at(&file, small()).verify().unwrap();
    assert_eq!(rows(), 6, "a, b, c beside the three expired ones");
    store.advance(Duration::from_secs(300));
    store.purge_on_writes(true);
    store.set(&s, "d", "1", None, None).unwrap();
    assert_eq!(rows(), 1, "only the new one left");
}

#[test]
fn ending_a_session_drops_every_hooks_state_of_that_session_only() {
    let store = StateStore::in_memory(StateLimits::default());
    let (a, b, other) = (scope("u", "/p", "s", "h1"), scope("u", "/p", "s", "h2"), scope("u", "/p", "s2", "h1"));
    for s in [&a, &b, &other] {
        store.set(s, "k", "v", None, None).unwrap();
    }
    assert_eq!(store.end_session("u", "/p", "s").unwrap(), 2);
    assert_eq!(store.get(&a, "k", None).unwrap(), None);
    assert_eq!(store.get(&b, "k", None).unwrap(), None);
    assert_eq!(store.get(&other, "k", None).unwrap().as_deref(), Some("v"));
    let dir = tempfile::tempdir().unwrap();
    let never = StateStore::at(&dir.path().join(FILE_NAME), StateLimits::default());
    assert_eq!(never.end_session("u", "/p", "s").unwrap(), 0);
    assert!(!dir.path().join(FILE_NAME).exists(), "no store is made to delete nothing from");
}

#[test]
fn concurrent_writers_on_one_file_lose_no_increment() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let s = scope("u", "/p", "s", "h");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (file, s) = (file.clone(), s.clone());
            std::thread::spawn(move || {
                // A store (and connection) each, as separate processes have.
                let store = StateStore::at(&file, StateLimits::default());
                for i in 0..25 {
                    store.incr(&s, "n", 1, None, None).unwrap();
                    store.set(&s, &format!("t{t}/{i}"), "x", None, None).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let store = StateStore::at(&file, StateLimits::default());
    assert_eq!(store.get(&s, "n", None).unwrap().as_deref(), Some("200"));
    assert_eq!(store.keys(&s, "t", None).unwrap().len(), 200);
}

#[test]
fn a_reader_sees_another_connections_writes_through_its_cache() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let s = scope("u", "/p", "s", "h");
    let (serve, run) = (StateStore::at(&file, StateLimits::default()), StateStore::at(&file, StateLimits::default()));
    assert_eq!(serve.get(&s, "k", None).unwrap(), None, "cached as not set");
    run.set(&s, "k", "1", None, None).unwrap();
    assert_eq!(serve.get(&s, "k", None).unwrap().as_deref(), Some("1"));
    run.delete(&s, "k", None).unwrap();
    assert_eq!(serve.get(&s, "k", None).unwrap(), None);
}

#[test]
fn an_unusable_store_is_an_error_naming_the_file_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    std::fs::write(&file, b"this is not a database, but it is long enough to have a header of sorts ............................").unwrap();
    let store = StateStore::at(&file, StateLimits::default());
    let s = scope("u", "/p", "s", "h");
    let err = store.get(&s, "k", None).unwrap_err();
    let StateError::Unavailable(msg) = &err else { panic!("{err:?}") };
    assert!(msg.starts_with(&format!("hookhost's state store {} cannot be opened: MDB_INVALID: File is not an LMDB file", file.display())), "{msg}");
    assert!(msg.ends_with("(if the file is damaged, move it away: hookhost starts a new one)"), "{msg}");
    assert_eq!(store.set(&s, "k", "v", None, None).unwrap_err(), err, "every call says the same");
    assert!(std::fs::read(&file).unwrap().starts_with(b"this is not a database"), "the file is left as it was");
    let newer = dir.path().join("newer.lmdb");
    drop(lmdb::Env::open(&newer, &lock_file(&newer), Instant::now() + Duration::from_secs(5), b"7").unwrap());
    let err = StateStore::at(&newer, StateLimits::default()).get(&s, "k", None).unwrap_err();
    assert!(err.to_string().contains("was written by a newer hookhost: schema 7, this hookhost knows 1"), "{err}");
}

/// The child of `a_writer_killed_mid_write_leaves_a_readable_store`: increments a counter and
/// prints each value once committed, until it is killed.
#[test]
fn writer_child() {
    let Some(file) = std::env::var_os("HOOKHOST_KV_CHILD") else { return };
    let store = StateStore::at(Path::new(&file), StateLimits::default());
    let s = scope("u", "/p", "s", "h");
    let mut out = std::io::stdout();
    loop {
        let n = store.incr(&s, "n", 1, None, None).unwrap();
        store.set(&s, &format!("k{}", n % 500), &"x".repeat(1000), None, None).unwrap();
        use std::io::Write;
        writeln!(out, "{n}").unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_writer_killed_mid_write_leaves_a_readable_store() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    for round in 0..3 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "kv::tests::writer_child", "--nocapture", "--test-threads=1"])
            .env("HOOKHOST_KV_CHILD", &file)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The test harness's own lines ("running 1 test") are not numbers.
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok).filter_map(|l| l.trim().parse::<i64>().ok());
        // Let it commit some, then kill it wherever it is (SIGKILL: no clean-up of any kind).
        let mut last = 0;
        for _ in 0..(200 + round * 150) {
            last = lines.next().expect("the writer stopped before it was killed");
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let store = StateStore::at(&file, StateLimits::default());
        assert!(store.verify().unwrap() >= 2, "round {round}: every row and index entry reads back");
        let n: i64 = store.get(&scope("u", "/p", "s", "h"), "n", None).unwrap().unwrap().parse().unwrap();
        assert!(n >= last, "round {round}: every acknowledged write is there ({n} < {last})");
    }
}

#[test]
fn a_project_is_its_repository_root() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    assert_eq!(project_of(Some(repo.join("src/deep").to_str().unwrap())), repo.to_string_lossy());
    let loose = dir.path().join("loose");
    assert_eq!(project_of(Some(loose.to_str().unwrap())), loose.to_string_lossy());
    assert_eq!(project_of(None), "");
    assert_eq!(project_of(Some("")), "");
}

/// Deferred writes (serve): seen at once by this store, committed a few milliseconds later (or
/// when it is dropped) for the others; an `incr` commits as an addition, so stores on one file
/// lose none; the bounds hold; a session's end commits before it deletes.
#[test]
fn deferred_writes_are_read_back_at_once_and_committed_soon() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let s = scope("u", "/p", "s", "h");
    let serve = StateStore::at(&file, small());
    serve.defer_writes();
    let run = StateStore::at(&file, small());
    serve.set(&s, "k", "v", None, None).unwrap();
    assert_eq!(serve.get(&s, "k", None).unwrap().as_deref(), Some("v"), "its own write, at once");
    assert_eq!(serve.incr(&s, "n", 2, None, None).unwrap(), 2);
    assert_eq!(run.incr(&s, "n", 5, None, None).unwrap(), 5, "the other process has not seen serve's yet");
    // The flusher commits within a few milliseconds.
    let deadline = Instant::now() + Duration::from_secs(5);
    while run.get(&s, "k", None).unwrap().is_none() {
        assert!(Instant::now() < deadline, "never committed");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(run.get(&s, "n", None).unwrap().as_deref(), Some("7"), "serve's +2 was added to run's 5, not written over it");
    // ... and serve sees the other's writes within RECHECK.
    std::thread::sleep(deferred::RECHECK);
    assert_eq!(serve.get(&s, "n", None).unwrap().as_deref(), Some("7"));
    // The bounds hold on what the cache holds (small(): 3 keys).
    serve.set(&s, "third", "x", None, None).unwrap();
    assert!(matches!(serve.set(&s, "fourth", "x", None, None), Err(StateError::Quota(_))));
    // Dropped: what is queued is committed.
    serve.set(&s, "k", "last", None, None).unwrap();
    drop(serve);
    let after = StateStore::at(&file, small());
    assert_eq!(after.get(&s, "k", None).unwrap().as_deref(), Some("last"));
    // A session's end commits what is queued, then deletes it all.
    let serve = StateStore::at(&file, small());
    serve.defer_writes();
    serve.delete(&s, "third", None).unwrap();
    serve.set(&s, "late", "x", None, None).unwrap();
    assert_eq!(serve.end_session("u", "/p", "s").unwrap(), 3, "k, n and late");
    assert!(after.keys(&s, "", None).unwrap().is_empty());
}

/// A deferred `incr` of a counter that has expired counts from 0 when it is committed, as a
/// direct one does — not from the expired value still in the file.
#[test]
fn a_deferred_incr_of_an_expired_counter_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let s = scope("u", "/p", "s", "h");
    let run = StateStore::at(&file, small());
    run.purge_on_writes(false);
    assert_eq!(run.incr(&s, "n", 5, Some(Duration::from_secs(10)), None).unwrap(), 5);
    let serve = StateStore::at(&file, small());
    serve.defer_writes();
    serve.advance(Duration::from_secs(11));
    assert_eq!(serve.incr(&s, "n", 1, None, None).unwrap(), 1, "expired: it counts from 0");
    drop(serve);
    let value = StateStore::at(&file, small()).get(&s, "n", None).unwrap();
    assert_eq!(value.as_deref(), Some("1"), "committed as 0 + 1, not onto the expired 5");
}

/// A write transaction that fails is abandoned whole, in a file and in memory alike.
#[test]
fn a_failed_write_transaction_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let (on_disk, _) = lmdb::Env::open(&file, &lock_file(&file), soon(), b"1").unwrap();
    for env in [on_disk, lmdb::Env::memory()] {
        let before = env.last_commit();
        let failed = env.write(soon(), |tx| {
            tx.put(lmdb::Db::Kv, b"a", b"1").unwrap();
            tx.put(lmdb::Db::Meta, b"schema", b"9").unwrap();
            Err::<(), _>("the body failed")
        });
        assert_eq!(failed.unwrap(), Err("the body failed"));
        assert_eq!(env.last_commit(), before, "nothing was committed");
        let seen = env.read(soon(), |tx| Ok::<_, lmdb::Error>((tx.get(lmdb::Db::Kv, b"a")?.map(<[u8]>::to_vec), tx.get(lmdb::Db::Meta, b"schema")?.map(<[u8]>::to_vec)))).unwrap().unwrap();
        let schema_before = if env.last_commit() == 0 { None } else { Some(b"1".to_vec()) };
        assert_eq!(seen, (None, schema_before));
        env.write(soon(), |tx| tx.put(lmdb::Db::Kv, b"a", b"2")).unwrap().unwrap();
        assert_eq!(env.last_commit(), before + 1);
        assert_eq!(env.read(soon(), |tx| tx.get(lmdb::Db::Kv, b"a").map(|v| v.map(<[u8]>::to_vec))).unwrap().unwrap().as_deref(), Some(&b"2"[..]));
    }
}

/// A writer holding the store's lock past a call's deadline: the call fails with an error naming
/// the store and the wait, rather than waiting on (the lock is the OS's: a holder that dies
/// releases it, as `a_writer_killed_mid_write_leaves_a_readable_store` shows).
#[test]
fn a_lock_held_past_the_deadline_is_an_error_not_a_wait() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let s = scope("u", "/p", "s", "h");
    let holder = StateStore::at(&file, StateLimits::default());
    holder.set(&s, "k", "1", None, None).unwrap();
    let (held, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
    let (held_tx, held_rx) = held;
    let (release_tx, release_rx) = release;
    let thread = std::thread::spawn(move || {
        let inner = holder.inner.lock().unwrap();
        inner
            .env()
            .write(Instant::now() + Duration::from_secs(5), |_tx| {
                held_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                Ok::<_, lmdb::Error>(())
            })
            .unwrap()
            .unwrap();
    });
    held_rx.recv().unwrap();
    let other = StateStore::at(&file, StateLimits::default());
    let started = Instant::now();
    let err = other.get(&s, "k", Some(Instant::now() + Duration::from_millis(200))).unwrap_err();
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(190) && waited < Duration::from_secs(2), "{waited:?}");
    let StateError::Unavailable(msg) = &err else { panic!("{err:?}") };
    assert!(msg.starts_with(&format!("hookhost's state store {} cannot be opened: another hookhost process kept it locked for ", file.display())), "{msg}");
    assert!(msg.contains(" ms, past this hook's deadline"), "{msg}");
    release_tx.send(()).unwrap();
    thread.join().unwrap();
    // Released: the same store (a `serve` lives on) opens it at its next call, as would a new one.
    assert_eq!(other.get(&s, "k", None).unwrap().as_deref(), Some("1"));
    assert_eq!(StateStore::at(&file, StateLimits::default()).get(&s, "k", None).unwrap().as_deref(), Some("1"));
}

/// `verify` reads every row and index entry: a value hookhost did not write, or an index entry
/// without its row, is named.
#[test]
fn verify_names_what_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let s = scope("u", "/p", "s", "h");
    let store = StateStore::at(&file, StateLimits::default());
    store.set(&s, "a", "1", None, None).unwrap();
    store.set(&s, "b", "2", None, None).unwrap();
    assert_eq!(store.verify().unwrap(), 2);
    drop(store);
    let (env, _) = lmdb::Env::open(&file, &lock_file(&file), soon(), b"1").unwrap();
    env.write(soon(), |tx| tx.put(lmdb::Db::Expiry, &expiry_key(5, &row_key(&scope_key(&s), "gone")), &[])).unwrap().unwrap();
    drop(env);
    let err = StateStore::at(&file, StateLimits::default()).verify().unwrap_err();
    assert!(err.to_string().contains("cannot be read: its expiry index has 3 entries (1 without their row) for 2 rows"), "{err}");
    let (env, _) = lmdb::Env::open(&file, &lock_file(&file), soon(), b"1").unwrap();
    env.write(soon(), |tx| tx.put(lmdb::Db::Kv, &row_key(&scope_key(&s), "c"), b"short")).unwrap().unwrap();
    drop(env);
    let err = StateStore::at(&file, StateLimits::default()).verify().unwrap_err();
    assert!(err.to_string().contains("cannot be read: a value is not an expiry and UTF-8 text"), "{err}");
}

/// The largest transaction hookhost makes — a full batch of deferred writes (as
/// `deferred::flush` commits it), each value as large as a hook may write (~4,500 dirty pages)
/// — fits one LMDB transaction, and so does ending that session.
#[test]
fn a_full_batch_of_the_largest_values_commits_and_ends() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let limits = StateLimits { max_bytes: 64 << 20, ..StateLimits::default() };
    let s = scope("u", "/p", "s", "h");
    let value = "v".repeat(limits.max_value_bytes as usize);
    let (env, _) = lmdb::Env::open(&file, &lock_file(&file), soon(), b"1").unwrap();
    let expires = StateStore::at(&file, limits).expiry(None);
    env.write(soon(), |tx| {
        for i in 0..FLUSH_AT {
            deferred::apply(tx, &s, &format!("k{i:03}"), Some(&value), expires, None)?;
        }
        Ok::<_, lmdb::Error>(())
    })
    .unwrap()
    .unwrap();
    drop(env);
    let run = StateStore::at(&file, limits);
    assert_eq!(run.keys(&s, "", None).unwrap().len(), FLUSH_AT);
    assert_eq!(run.get(&s, "k255", None).unwrap().map(|v| v.len()), Some(value.len()));
    assert_eq!(run.end_session("u", "/p", "s").unwrap(), FLUSH_AT);
    assert_eq!(StateStore::at(&file, limits).verify().unwrap(), 0);
}
