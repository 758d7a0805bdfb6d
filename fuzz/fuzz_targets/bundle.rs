#![no_main]
//! Bundle archives, manifests, OCI manifests and signatures (body: `hookhost::fuzz::bundle`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookhost::fuzz::bundle(data));
