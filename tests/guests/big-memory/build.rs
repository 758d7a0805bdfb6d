fn main() {
    // The component declares a 1 GiB initial memory: over any sane per-hook limit.
    println!("cargo:rustc-link-arg=--initial-memory=1073741824");
}
