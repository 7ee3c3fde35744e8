//! The `enet_rs_shipped_library` cfg for the build CMake installs. The
//! shared and static libraries themselves, and their ELF details, are
//! `crates/libenet`'s.

fn main() {
    // CMake's build of the installed library sets ENET_RS_SHIPPED_LIBRARY,
    // and src/lib.rs then refuses to compile unless panics abort. Test
    // builds (which Cargo always compiles to unwind) leave it unset.
    println!("cargo:rustc-check-cfg=cfg(enet_rs_shipped_library)");
    println!("cargo:rerun-if-env-changed=ENET_RS_SHIPPED_LIBRARY");
    if std::env::var_os("ENET_RS_SHIPPED_LIBRARY").is_some() {
        println!("cargo:rustc-cfg=enet_rs_shipped_library");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
