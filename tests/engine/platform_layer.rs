//! Everything system-specific lives in the platform layer (`src/net/sys/`)
//! and the ABI's platform types (`src/abi/unix.rs`, `src/abi/win32.rs`,
//! chosen in `src/abi/mod.rs`). This reads the sources and checks that no
//! other file names a system's API or picks a system by `cfg`, so a port to
//! another system touches those places only.

use std::fs;
use std::path::{Path, PathBuf};

/// What only the platform layer may write.
const SYSTEM_SPECIFIC: &[&str] = &[
    "libc::",
    "std::os::unix",
    "std::os::fd",
    "std::os::windows",
    "windows_sys",
    "cfg(unix)",
    "cfg(windows)",
    "cfg(not(unix",
    "cfg(not(windows",
    "target_os",
    "target_family",
];

/// Where it may: the platform layer, the ABI's platform types, and the
/// allocator hooks (C's `malloc` and `free`, the same on every system).
const ALLOWED: &[&str] = &[
    "src/net/sys/",
    "src/abi/unix.rs",
    "src/abi/win32.rs",
    "src/abi/mod.rs",
    "src/mem/hooks.rs",
];

fn rust_files(directory: &Path, into: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(directory).expect("readable source directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            into.push(path);
        }
    }
}

/// Every `file:line: text` outside the allowed places that names a system.
fn system_specific_lines(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if ALLOWED.iter().any(|allowed| relative.starts_with(allowed)) {
            continue;
        }
        let source = fs::read_to_string(&file).expect("readable source");
        for (number, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if SYSTEM_SPECIFIC.iter().any(|name| code.contains(name)) {
                found.push(format!("{relative}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn only_the_platform_layer_names_a_system() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = system_specific_lines(root);
    assert!(
        found.is_empty(),
        "system-specific code outside src/net/sys and the ABI's platform types:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_system_call_where_it_does_not_belong() {
    let scratch = std::env::temp_dir().join(format!("enet-platform-layer-{}", std::process::id()));
    let module = scratch.join("src/proto");
    fs::create_dir_all(&module).unwrap();
    fs::write(
        module.join("stray.rs"),
        "fn f() { unsafe { libc::close(3) }; } // libc:: in a comment is fine\n",
    )
    .unwrap();
    fs::create_dir_all(scratch.join("src/net/sys/unix")).unwrap();
    fs::write(
        scratch.join("src/net/sys/unix/fine.rs"),
        "use libc::c_int;\n",
    )
    .unwrap();
    let found = system_specific_lines(&scratch);
    fs::remove_dir_all(&scratch).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/proto/stray.rs:1:"));
}
