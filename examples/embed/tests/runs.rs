//! The example embedding builds and does what docs/EMBEDDING.md says it does.

#[test]
fn the_embedding_example_applies_block_and_rewrites() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_embed")).output().expect("run the example");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "pre_tool_use \"rm -rf /tmp/build\": refused: rm -rf is not allowed here",
            "pre_tool_use \"deploy production\": run \"deploy --dry-run\"",
            "pre_tool_use \"ls\": run \"ls\"",
            "user_prompt_submit: \"allow\" → the model sees \"[reviewed] hello\"",
        ]
    );
}
