//! The checked-in headers are exactly what the generator makes now.
//!
//! Fails after a change to the Rust ABI sources, the `src/ffi` prototypes or
//! `cbindgen.toml` that was not followed by `cargo run -p gen-headers`.

use std::collections::BTreeSet;

use gen_headers::{drift, generate, repository_root, write, HEADER_DIR};

#[test]
fn checked_in_headers_match_a_fresh_generation() {
    let root = repository_root();
    let headers = generate(&root).expect("headers generate");
    let fresh = tempfile::tempdir().expect("temporary directory");
    write(fresh.path(), &headers).expect("headers written");

    let checked_in = root.join(HEADER_DIR);
    let mut stale = Vec::new();
    for header in &headers {
        let generated = std::fs::read(fresh.path().join(&header.file)).expect("fresh header");
        match std::fs::read(checked_in.join(&header.file)) {
            Ok(on_disk) if on_disk == generated => {}
            Ok(_) => stale.push(header.file.clone()),
            Err(_) => stale.push(format!("{} (missing)", header.file)),
        }
    }
    assert!(
        stale.is_empty(),
        "stale headers in {HEADER_DIR}: {}\n{}\nrun `cargo run -p gen-headers`",
        stale.join(", "),
        drift(&checked_in, &headers).concat()
    );
}

#[test]
fn every_checked_in_header_is_generated() {
    let root = repository_root();
    let generated: BTreeSet<String> = generate(&root)
        .expect("headers generate")
        .into_iter()
        .map(|header| header.file)
        .collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(root.join(HEADER_DIR))
        .expect("include/enet exists")
        .map(|entry| entry.expect("directory entry").file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        on_disk, generated,
        "include/enet/ holds exactly the generated headers"
    );
}

#[test]
fn the_stock_header_set_and_the_extension_header_are_generated() {
    let generated: BTreeSet<String> = generate(&repository_root())
        .expect("headers generate")
        .into_iter()
        .map(|header| header.file)
        .collect();
    // Debian's libenet-dev ships these (win32.h included, though only a
    // Windows build reads it).
    let stock: BTreeSet<String> = [
        "callbacks.h",
        "enet.h",
        "list.h",
        "protocol.h",
        "time.h",
        "types.h",
        "unix.h",
        "utility.h",
        "win32.h",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    // Beside them, the one header of our extensions.
    let mut expected = stock;
    expected.insert("enet_rs.h".to_string());
    assert_eq!(generated, expected);
}

#[test]
fn generation_is_deterministic() {
    let root = repository_root();
    let first = generate(&root).expect("headers generate");
    let second = generate(&root).expect("headers generate");
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a.file, b.file);
        assert!(a.text == b.text, "{} differs between two runs", a.file);
    }
}
