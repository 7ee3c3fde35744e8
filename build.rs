//! ELF details of the shared library: the SONAME programs link against.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        // Programs built against stock ENet record `libenet.so.7`.
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libenet.so.7");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
