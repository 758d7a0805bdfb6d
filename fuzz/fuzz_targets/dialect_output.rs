#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| bash_adapter::fuzz::dialect_output(data));
