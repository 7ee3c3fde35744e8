//! The checked-in header sets are exactly what the generator makes now:
//! `include/enet/` for the default identity (1.3.17) and
//! `include/1.3.18/enet/` for the 1.3.18 identity.
//!
//! Fails after a change to the Rust ABI sources, the `src/ffi` prototypes or
//! `cbindgen.toml` that was not followed by `cargo run -p gen-headers`.

use std::collections::BTreeSet;

use gen_headers::{drift, generate, repository_root, write, Identity};

#[test]
fn checked_in_headers_match_a_fresh_generation() {
    let root = repository_root();
    let mut stale = Vec::new();
    let mut reports = String::new();
    for identity in Identity::ALL {
        let headers = generate(&root, identity).expect("headers generate");
        let fresh = tempfile::tempdir().expect("temporary directory");
        write(fresh.path(), &headers).expect("headers written");
        let checked_in = root.join(identity.header_dir());
        for header in &headers {
            let generated = std::fs::read(fresh.path().join(&header.file)).expect("fresh header");
            let name = format!("{}/{}", identity.header_dir(), header.file);
            match std::fs::read(checked_in.join(&header.file)) {
                Ok(on_disk) if on_disk == generated => {}
                Ok(_) => stale.push(name),
                Err(_) => stale.push(format!("{name} (missing)")),
            }
        }
        reports.push_str(&drift(&checked_in, &headers).concat());
    }
    assert!(
        stale.is_empty(),
        "stale headers: {}\n{reports}\nrun `cargo run -p gen-headers`",
        stale.join(", "),
    );
}

#[test]
fn every_checked_in_header_is_generated() {
    let root = repository_root();
    for identity in Identity::ALL {
        let generated: BTreeSet<String> = generate(&root, identity)
            .expect("headers generate")
            .into_iter()
            .map(|header| header.file)
            .collect();
        let dir = root.join(identity.header_dir());
        let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
            .map(|entry| entry.expect("directory entry").file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            on_disk,
            generated,
            "{} holds exactly the generated headers",
            identity.header_dir()
        );
    }
}

#[test]
fn the_stock_header_set_and_the_extension_header_are_generated() {
    // Debian's libenet-dev ships these (win32.h included, though only a
    // Windows build reads it), and so does 1.3.18.
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
    for identity in Identity::ALL {
        let generated: BTreeSet<String> = generate(&repository_root(), identity)
            .expect("headers generate")
            .into_iter()
            .map(|header| header.file)
            .collect();
        assert_eq!(generated, expected, "{}", identity.release());
    }
}

#[test]
fn the_identities_differ_in_version_mtu_and_three_field_names() {
    // Layout and wire are the same in both releases: besides its version
    // and default MTU, the 1.3.18 set only names three fields as 1.3.18
    // does (cbindgen.toml's [identity."1.3.18".fields]).
    let root = repository_root();
    let default = generate(&root, Identity::Enet1_3_17).expect("headers generate");
    let later = generate(&root, Identity::Enet1_3_18).expect("headers generate");
    let mut differing = Vec::new();
    for (a, b) in default.iter().zip(&later) {
        assert_eq!(a.file, b.file);
        let a_lines: Vec<&str> = a.text.lines().collect();
        let b_lines: Vec<&str> = b.text.lines().collect();
        assert_eq!(
            a_lines.len(),
            b_lines.len(),
            "{}: line counts differ",
            a.file
        );
        for (line_a, line_b) in a_lines.iter().zip(&b_lines) {
            if line_a != line_b {
                differing.push(format!("{}: {} | {}", a.file, line_a.trim(), line_b.trim()));
            }
        }
    }
    assert_eq!(
        differing,
        [
            "enet.h: #define ENET_VERSION_PATCH 17 | #define ENET_VERSION_PATCH 18",
            "enet.h: #define ENET_HOST_DEFAULT_MTU 1400 | #define ENET_HOST_DEFAULT_MTU 1392",
            "enet.h: enet_uint32 roundTripTimeoutLimit; | enet_uint32 queueTime;",
            "enet.h: ENetList sentUnreliableCommands; | ENetList outgoingSendReliableCommands;",
            "enet.h: int continueSending; | enet_uint32 totalQueued;",
        ]
    );
}

#[test]
fn generation_is_deterministic() {
    let root = repository_root();
    for identity in Identity::ALL {
        let first = generate(&root, identity).expect("headers generate");
        let second = generate(&root, identity).expect("headers generate");
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(a.file, b.file);
            assert!(
                a.text == b.text,
                "{} {} differs between two runs",
                identity.release(),
                a.file
            );
        }
    }
}
