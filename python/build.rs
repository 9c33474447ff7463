//! The module's shared library without the debug sections the release profile keeps for
//! backtraces (`debug = "line-tables-only"`): 439 MB with them, for a wheel of 60 MB. Only this
//! crate's link is told, so the dependencies' builds are shared with the rest of the workspace.
fn main() {
    println!("cargo:rustc-link-arg-cdylib=-Wl,--strip-debug");
}
